/**
 * OCR's usual slips in printed amounts and dates, mended without moving a character (so that
 * positions in the mended text are positions in the text as read). Only for pages read by OCR:
 * a text layer prints what it means.
 *
 * - The decimal point read as a space ("RM 8 60", "20 00"), only in the amount that ends the
 *   text, where totals stand: "2 15" inside a row is a quantity and a price.
 * - Spaces read around the decimal point or between the cents ("RM 65. 20", "RM 1 . 3 8"), in
 *   the amount that ends the text: the figures move right, so the amount keeps its length and place.
 * - A zero read as the letter O ("RMO0.00", "1O.50"), and the letter O read as a zero in a word
 *   ("Incl.0f GST", "T0TAL").
 * - A date's zero read as 6, 8 or 9 where no other digit can stand: a month "63" or "83"
 *   (30/63/2018), a year "2618".
 */
const POINT_AS_SPACE = /(?<![\d.,]\s?)(?<!\d)(\d{1,6}) (\d{2})(?=\s*[^\d\s%]{0,2}\s*$)/;
const SPACED_POINT = /(?<![\d.,])(\d{1,6}) ?([.,]) ?(\d) ?(\d)(?=\s*[^\d\s%]{0,2}\s*$)/;
const O_AS_ZERO = /(?<=^|[\s\d.,:(]|RM)[Oo](?=\d|[.,]\d)/g;
const ZERO_AS_O = /(?<=\p{L}\.?)0(?=\p{L})/gu;
const DATE = /(?<!\d)(\d{2})([/.-])(\d{2})\2(\d{4})(?!\d)/g;

/** A month or day whose leading 0 was read as a figure of like shape. */
const zeroAgain = (part: string, max: number) => (+part > max && /^[689][1-9]$/.test(part) ? `0${part[1]}` : part);
const year = (part: string) => part.replace(/^2[689](?=1\d)/, '20');

export function mendSlips(text: string): string {
  return text
    .replace(O_AS_ZERO, '0')
    .replace(ZERO_AS_O, 'O')
    .replace(POINT_AS_SPACE, '$1.$2')
    .replace(SPACED_POINT, (read: string, units: string, point: string, tens: string, cents: string) => `${units}${point}${tens}${cents}`.padStart(read.length))
    .replace(DATE, (_, a: string, sep: string, b: string, y: string) => `${zeroAgain(a, 31)}${sep}${zeroAgain(b, 12)}${sep}${year(y)}`);
}
