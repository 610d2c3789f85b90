import { describe, expect, it } from 'vitest';
import { hasLegalForm, isLegalFormOnly, withoutLegalForm } from '../../src/extraction/legal-forms.js';

describe('legal forms', () => {
  it('knows a company by its legal form, in a till’s capitals and abbreviations too', () => {
    for (const name of ['Lieferant GmbH & Co. KG', 'Oravel Stays Pvt. Ltd.', 'Zeal Cash & Carry Sdn. Bhd.', 'WESTERN EASTERN STATIONERY SDN. BHD', 'YONG SOON FATT S/B', 'AEON CO. (M) BHD']) {
      expect(hasLegalForm(name), name).toBe(true);
    }
    for (const text of ['Total Sales', 'Geschäftsführer', 'TAX INVOICE', 'JALAN SS 2/72']) expect(hasLegalForm(text), text).toBe(false);
  });

  it('tells a legal form alone from a name, and takes it off a name', () => {
    expect(isLegalFormOnly('SDN. BHD')).toBe(true);
    expect(isLegalFormOnly('Sdn Bhd')).toBe(true);
    expect(isLegalFormOnly('Marketing Sdn Bhd')).toBe(false);
    expect(withoutLegalForm('Zeal Cash & Carry Sdn. Bhd.')).toBe('Zeal Cash & Carry');
    expect(withoutLegalForm('Free SAS')).toBe('Free');
  });
});
