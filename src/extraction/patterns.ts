/** Shapes of contact and bank details, shared by the field finders that look for them and those that must skip them. */

export const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g;
export const EMAIL = /[A-Z0-9._%+-]+@[A-Z0-9-]+(?:\.[A-Z0-9-]+)*\.[A-Z]{2,}/gi;
export const PHONE = /\+?\(?\d[\d\s().\/-]{5,}\d/;
export const INTERNATIONAL_PHONE = /\+\d{1,3}[\s().\/-]*\d[\d\s().\/-]{5,}\d/g;
/** A North American number as printed without its country code: the area code in brackets, then 3 and 4 figures ("(870) 931-0505"). */
export const NORTH_AMERICAN_PHONE = /(?<![\d)])\(\d{3}\)[\s.-]?\d{3}[\s.-]\d{4}(?![\d(])/g;
export const IBAN_ANYWHERE = new RegExp(IBAN.source);
const EMAIL_ANYWHERE = new RegExp(EMAIL.source, 'i');
const WEB = /\bwww\.|https?:\/\/|\.(?:com|de|fr|org|net|io|co\.uk)\b/i;

/** Text holding an e-mail address, a web address, a phone number, an IBAN or a label's colon. */
export function isAddressOrContact(text: string): boolean {
  return EMAIL_ANYWHERE.test(text) || WEB.test(text) || PHONE.test(text) || /[:：]/.test(text) || IBAN_ANYWHERE.test(text);
}
