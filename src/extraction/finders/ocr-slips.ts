/**
 * OCR's usual slips in a printed amount, mended without moving a character (so that positions in
 * the mended text are positions in the text as read): the decimal point read as a space
 * ("RM 8 60", "20 00") and a zero read as the letter O ("RMO0.00", "1O.50"). Only for pages
 * read by OCR: a text layer prints what it means. A space is taken for a point only in the
 * amount that ends the text, where totals stand: "2 15" inside a row is a quantity and a price.
 */
const POINT_AS_SPACE = /(?<![\d.,]\s?)(?<!\d)(\d{1,6}) (\d{2})(?=\s*[^\d\s%]{0,2}\s*$)/;
const O_AS_ZERO = /(?<=^|[\s\d.,:(]|RM)[Oo](?=\d|[.,]\d)/g;

export function mendAmounts(text: string): string {
  return text.replace(O_AS_ZERO, '0').replace(POINT_AS_SPACE, '$1.$2');
}
