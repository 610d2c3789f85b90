import type { components } from '../../../generated/openapi.js';

export type Profile = NonNullable<NonNullable<components['schemas']['EInvoice']>['profile']>;

/**
 * The profile a specification identifier (CII guideline BT-24, UBL CustomizationID) names:
 * Factur-X / ZUGFeRD 2 (`urn:factur-x.eu:1p0:basicwl`, `urn:cen.eu:en16931:2017`, ...),
 * ZUGFeRD 1.0 (`urn:ferd:CrossIndustryDocument:invoice:1p0:comfort`, its name for EN 16931) and
 * the CIUS on top of EN 16931 (XRechnung); null for an identifier none of these.
 */
export function profileOf(specification: string): Profile | null {
  const id = specification.toLowerCase();
  if (id.includes('xrechnung')) return 'XRECHNUNG';
  if (/extended/.test(id)) return 'EXTENDED';
  if (/basic-?wl/.test(id)) return 'BASIC WL';
  if (/minimum/.test(id)) return 'MINIMUM';
  if (/:basic\b/.test(id)) return 'BASIC';
  if (/:comfort\b/.test(id) || id.startsWith('urn:cen.eu:en16931:2017')) return 'EN 16931';
  return null;
}
