/** Legal forms of companies in several languages and spellings: a company's full name ends with one. */
const LEGAL_FORM = String.raw`(?:GmbH|mbH|AG|KGaA|KG|OHG|UG|GbR|e\.K\.|e\.V\.|eG|SE|Ltd|LTD|Limited|LIMITED|Private Limited|Pvt|PVT|Pte|Pty|Inc|INC|Incorporated|LLC|LLP|LP|PLC|plc|Corp|CORP|Corporation|Co|CO|Company|SA|S\.A\.|SAS|S\.A\.S\.|SASU|SARL|Sarl|EURL|SNC|SL|S\.L\.|SRL|Srl|S\.r\.l\.|SpA|S\.p\.A\.|BV|B\.V\.|NV|N\.V\.|VOF|AB|AS|A\/S|ApS|Oy|Oyj|[Ss]p\. z o\.o\.|spółka akcyjna|s\.r\.o\.|a\.s\.|d\.o\.o\.|Kft|Zrt|Sdn\.? Bhd|SDN\.? BHD|Bhd|BHD|S\/B)\.?`;
const FORMS = String.raw`${LEGAL_FORM}(?:,?\s*(?:&\s*)?${LEGAL_FORM})*(?![\p{L}\p{N}])`;
/** A name, then its legal form or a chain of them ("GmbH & Co. KG", "Pvt. Ltd."). */
export const NAMED_COMPANY = new RegExp(String.raw`^(\S.*?),?\s+(${FORMS})`, 'u');
const TRAILING_FORMS = new RegExp(String.raw`,?\s+${FORMS}\s*$`, 'u');
const FORMS_ONLY = new RegExp(String.raw`^${FORMS}\s*$`, 'u');
/** "GmbH" or "Sdn. Bhd." alone: the end of a company's name, not a name. */
export function isLegalFormOnly(text: string): boolean {
  return FORMS_ONLY.test(text.trim());
}

export function hasLegalForm(name: string): boolean {
  return TRAILING_FORMS.test(name);
}

/** "Zeal Cash & Carry" of "Zeal Cash & Carry Sdn. Bhd.". */
export const withoutLegalForm = (name: string) => name.replace(TRAILING_FORMS, '');
