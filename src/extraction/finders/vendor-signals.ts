import { findVendor } from '../vendor.js';
import { isStreetLine } from './header-block.js';
import type { Candidate, Finder } from './types.js';

/** The vendor by the signals of `findVendor` (legal form, web domain, payee, prominent letterhead line) when no label names it. */
export const vendorSignals: Finder = (ctx) => {
  const vendor = findVendor(ctx.doc, ctx.pairs, ctx.inRecipientBlock);
  if (!vendor) return [];
  const { name, address } = vendor;
  // A receipt's most prominent line may be its street ("Jalan Lapangan Terbang Subang"): no company.
  if (isStreetLine(name.value)) return [];
  const out: Candidate[] = [{ ...name, field: 'vendor_name', score: name.confidence / 100, textConfidence: 100 }];
  if (address) out.push({ ...address, field: 'vendor_address', score: address.confidence / 100, textConfidence: 100, belongsTo: name.value });
  return out;
};
