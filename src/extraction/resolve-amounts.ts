import type { Candidate, FinderContext } from './finders/types.js';
import { amountsAgree as agree } from './normalise.js';

/** What one independent check (subtotal + tax, cash - change) adds to a total's weight: two outweigh a label. */
const CONFIRMS = 0.35;

const money = (n: number) => n.toFixed(2);

/** Two amounts or dates as printed that differ in one figure only. */
export function oneFigureApart(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let apart = 0;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) apart += /\d/.test(a[i]!) && /\d/.test(b[i]!) ? 1 : 2;
  return apart === 1;
}

export interface Chosen {
  candidate: Candidate;
  /** Added to the candidate's score: agreement raises it, disagreement lowers it. */
  support: number;
  notes: string[];
}

interface Hypothesis extends Chosen {
  amount: number;
  /** Made from the cash tendered and the change, which therefore cannot confirm it. */
  fromPayment?: boolean;
  /** The labelled total this hypothesis adds a rounding adjustment to. */
  beforeRounding?: number;
}

/** A rounding and a service charge, either of them 0, added between the subtotal and the total. */
interface Adjustment {
  amount: number;
  rounding: number;
  charge: number;
}

/** The adjustment as the explanation says it: " with the service charge 29.50 and the rounding -0.02". */
function adjusted({ rounding, charge }: Adjustment, joiner: string): string {
  const parts = [...(charge ? [`the service charge ${money(charge)}`] : []), ...(rounding ? [`the rounding ${money(rounding)}`] : [])];
  return parts.length ? ` ${joiner} ${parts.join(' and ')}` : '';
}

const fiveCents = (n: number) => Math.round(n * 100) % 5 === 0;

/** A printed total that is the end of an amount ("9.30" of 29.30): OCR lost its first figures, as it does with large bold print. */
const cutShort = (printed: Candidate, amount: number) => printed.amount! > 0 && money(amount).length > printed.value.length && money(amount).endsWith(printed.value);

const byScore = (a: { candidate: Candidate; support: number }, b: { candidate: Candidate; support: number }) => b.candidate.score + b.support - (a.candidate.score + a.support);

/**
 * The total, subtotal and tax that fit together. Each labelled total, each total plus a rounding
 * adjustment, and each unlabelled amount is a hypothesis; it gains support when subtotal + tax
 * equals it, when cash tendered minus change equals it, when the line items add up to it, and
 * when it is the largest labelled total (a grand total before a prepayment is deducted). The
 * subtotal and tax are then the pair that adds up to the chosen total, else the best of each,
 * marked down for not adding up.
 */
export interface ItemAmounts {
  /** The sum of the line items' amounts. */
  sum: number;
  /** Each item's amount. */
  amounts: number[];
}

export function resolveAmounts(of: (field: Candidate['field']) => Candidate[], items: ItemAmounts | null, { documentType, ocr }: Pick<FinderContext, 'documentType' | 'ocr'>): Map<string, Chosen> {
  const receipt = documentType === 'receipt';
  const totals = of('total_amount');
  const subtotals = of('subtotal');
  const taxes = of('tax_amount');
  const tendered = of('amount_tendered');
  const changes = of('change_due');
  // Cash is rounded to the nearest coin, so by at most half the largest coin tills round to (Swedish kronor: 0.50).
  const roundings = of('rounding').filter((r) => Math.abs(r.amount!) <= 0.5);
  const unlabelled = of('amount');
  const chosen = new Map<string, Chosen>();

  const hypotheses: Hypothesis[] = [
    ...totals.map((t) => ({ candidate: t, amount: t.amount!, support: 0, notes: [] as string[] })),
    ...totals.flatMap((t) =>
      roundings.map((r) => {
        const amount = Math.round((t.amount! + r.amount!) * 100) / 100;
        // What is paid is the total after its rounding adjustment, which rounds it to five cents:
        // a sum in other cents has a rounding OCR misread ("0.02" for -0.02).
        const adjusted = !agree(r.amount!, 0);
        const support = !adjusted ? 0 : fiveCents(amount) ? 0.05 : -0.1;
        return { candidate: { ...t, value: money(amount), amount }, amount, beforeRounding: t.amount!, support, notes: [`${t.value} with the rounding ${r.value}`] };
      }),
    ),
    ...unlabelled.map((a) => ({ candidate: a, amount: a.amount!, support: 0, notes: [] as string[] })),
  ];
  const distinct = new Set(totals.map((t) => t.amount!.toFixed(2)));
  const largest = Math.max(...totals.map((t) => t.amount!), -Infinity);
  const subtotalMax = Math.max(...subtotals.map((s) => s.amount!), -Infinity);
  // What a till prints last and largest, cash tendered aside, is most often what was paid.
  const paidIn = new Set(tendered.map((t) => t.amount!.toFixed(2)));
  const largestPrinted = Math.max(...unlabelled.filter((a) => !paidIn.has(a.amount!.toFixed(2)) && Math.abs(a.amount!) < 10_000_000).map((a) => a.amount!), -Infinity);
  // What was paid is a total too: cash tendered less the change given (with no labelled total, cash alone).
  // Eight digits and more before the point are an OCR misreading, not a till's cash.
  for (const p of tendered.filter((t) => Math.abs(t.amount!) < 10_000_000)) {
    const change = changes.find((c) => c.amount! > 0 && c.amount! < p.amount!);
    if (!change && totals.length && !totals.some((t) => cutShort(t, p.amount!))) continue;
    const amount = Math.round((p.amount! - (change?.amount ?? 0)) * 100) / 100;
    const candidate = { ...p, field: 'total_amount' as const, value: money(amount), amount, score: change ? 0.3 : 0.35 };
    hypotheses.push({ candidate, amount, support: 0, notes: [change ? `${p.value} tendered minus ${change.value} change` : `${p.value} paid, no change given`], fromPayment: true });
  }
  // A receipt's "Total" before tax is a subtotal in all but name: "TOTAL 20.00, GST 1.20, NET TOTAL 21.20".
  const bases = [...subtotals, ...totals];
  // What a till adds between the subtotal and the total besides tax: a service charge, a rounding, or both.
  const charges = [0, ...of('service_charge').filter((c) => c.amount! > 0).map((c) => c.amount!)];
  // Two labelled totals a few cents apart, the later in five cents: the first rounded for cash, whether or not OCR read the rounding line's figure.
  const roundedPairs = totals.flatMap((a) => totals.filter((b) => (a.row ?? 0) < (b.row ?? 0) && Math.abs(b.amount! - a.amount!) < 0.05 && fiveCents(b.amount!) && !fiveCents(a.amount!)).map((b) => [a, b] as const));
  const implied = roundedPairs.map(([a, b]) => Math.round((b.amount! - a.amount!) * 100) / 100);
  const adjustments: Adjustment[] = [0, ...roundings.map((r) => r.amount!), ...implied].flatMap((rounding) => charges.map((charge) => ({ amount: rounding + charge, rounding, charge })));
  // OCR misreads a figure of a printed total now and then ("112.46" for 112.45): subtotal, tax and
  // rounding that add up to the printed total but for that one figure say what it is.
  for (const t of totals.filter((t) => t.page !== undefined && ocr(t.page))) {
    for (const s of subtotals) {
      for (const x of taxes.filter((x) => x.amount! > 0)) {
        for (const r of adjustments) {
          const amount = Math.round((s.amount! + x.amount! + r.amount) * 100) / 100;
          if (agree(amount, t.amount!) || !oneFigureApart(money(amount), t.value)) continue;
          hypotheses.push({ candidate: { ...t, value: money(amount), amount, score: 0.8 * t.score }, amount, support: 0, notes: [`printed ${t.value}, one figure off`] });
        }
      }
    }
  }
  const paidAmounts = hypotheses.filter((h) => h.fromPayment).map((h) => h.amount);
  // Each amount tendered less each change given: what was paid, if they are the sale's.
  const payments = tendered.flatMap((p) => changes.filter((c) => c.amount! > 0).map((c) => ({ tendered: p, change: c, amount: p.amount! - c.amount! })));
  // What was paid where an amount printed on the page says the same.
  const paidPrinted = payments.map((p) => Math.round(p.amount * 100) / 100).filter((amount) => amount > 0 && unlabelled.some((a) => agree(a.amount!, amount)));
  for (const h of hypotheses) {
    const sum = bases.flatMap((s) => taxes.flatMap((x) => adjustments.map((r) => [s, x, r] as const))).find(([s, x, r]) => s !== h.candidate && s.amount! > 0 && s.amount! <= h.amount && agree(s.amount! + x.amount! + r.amount, h.amount));
    if (sum) {
      const [s, x, r] = sum;
      h.support += CONFIRMS;
      h.notes.push(`equals subtotal ${s.value} + tax ${x.value}${adjusted(r, 'with')}`);
    }
    const paid = payments.find((p) => agree(p.amount, h.amount));
    const short = h.fromPayment ? totals.find((t) => cutShort(t, h.amount)) : undefined;
    const whole = h.fromPayment ? undefined : paidAmounts.find((amount) => cutShort(h.candidate, amount));
    if (short) {
      h.support += CONFIRMS;
      h.notes.push(`the total printed as ${short.value} with its first figures lost`);
    } else if (whole !== undefined) {
      // A total and a payment that disagree but for the first figures: the payment, read whole, outweighs even an exact label.
      h.support -= 2 * CONFIRMS;
      h.notes.push(`the end of ${money(whole)} paid`);
    }
    // "TOTAL 11.00" over "CASH 101.00, CHANGE 30.00" and 71.00 printed elsewhere: OCR misread one figure of the label's amount.
    const misread = h.fromPayment || h.candidate.field === 'amount' ? undefined : paidPrinted.find((amount) => oneFigureApart(money(amount), h.candidate.value));
    if (misread !== undefined) {
      h.support -= 2 * CONFIRMS;
      h.notes.push(`one figure off the ${money(misread)} paid`);
    }
    if (paid && !h.fromPayment) {
      h.support += CONFIRMS;
      h.notes.push(`equals ${paid.tendered.value} tendered minus ${paid.change.value} change`);
    } else if (tendered.some((p) => agree(p.amount!, h.amount)) && changes.every((c) => agree(c.amount!, 0))) {
      h.support += 0.1;
      h.notes.push('equals the amount paid');
    }
    // An amount of the item table itself (a single item) is no confirmation of a total by the items.
    if (items && agree(items.sum, h.amount) && !items.amounts.some((a) => agree(a, h.amount))) {
      h.support += 0.15;
      h.notes.push('equals the sum of the line items');
    }
    if (h.candidate.field === 'total_amount' && (h.beforeRounding ?? h.amount) === largest && distinct.size > 1) h.support += 0.05;
    // A till prints the rounded total under the rounding line, often without a label of its own.
    if (h.beforeRounding !== undefined && h.beforeRounding !== h.amount && unlabelled.some((a) => agree(a.amount!, h.amount))) {
      h.support += 0.15;
      h.notes.push('printed after the rounding');
    }
    if (receipt && h.amount === largestPrinted && h.candidate.field !== 'amount') {
      h.support += 0.1;
      h.notes.push('the largest amount on the receipt apart from the cash tendered');
    }
    // "Total : 20.00" in a tax summary is the subtotal, when the subtotal plus its tax is printed too.
    const taxed = taxes.find((x) => x.amount! > 0 && [...unlabelled, ...totals].some((a) => agree(a.amount!, h.amount + x.amount!) && !paidIn.has(a.amount!.toFixed(2))));
    if (taxed && subtotals.some((s) => s !== h.candidate && agree(s.amount!, h.amount))) {
      h.support -= 0.3;
      h.notes.push(`equals the subtotal, to which tax ${taxed.value} is added`);
    } else if (taxed) {
      h.support -= 0.2;
      h.notes.push(`with tax ${taxed.value} it makes another amount printed`);
    }
    // Of such a pair, the rounded total is what was paid.
    const pair = roundedPairs.find(([a, b]) => a === h.candidate || b === h.candidate);
    if (pair && pair[1] === h.candidate) {
      h.support += 0.15;
      h.notes.push(`the total ${pair[0].value} rounded`);
    } else if (pair) {
      h.support -= 0.15;
      h.notes.push(`rounded to ${pair[1].value} further down`);
    }
    // A rounding line rounds what is paid in cash to five cents.
    if (roundings.some((r) => !agree(r.amount!, 0)) && fiveCents(h.amount) && h.candidate.field !== 'amount') h.support += 0.05;
    if (h.amount < subtotalMax - 0.005) {
      h.support -= 0.2;
      h.notes.push('less than the subtotal');
    }
    if (h.candidate.field === 'amount' && totals.some((t) => agree(t.amount!, h.amount))) h.support -= 1;
    // Only a credit note owes a negative total.
    if (h.amount <= 0 && documentType !== 'credit_note') h.support -= 0.5;
  }
  const total = hypotheses.sort(byScore)[0];
  if (!total || (total.candidate.field === 'amount' && total.support < CONFIRMS)) {
    for (const [field, list] of [['subtotal', subtotals], ['tax_amount', taxes]] as const) {
      const best = [...list].sort((a, b) => b.score - a.score)[0];
      if (best) chosen.set(field, { candidate: best, support: 0, notes: [] });
    }
    return chosen;
  }
  if (total.support === 0 && (subtotals.length || taxes.length)) {
    total.support -= 0.1;
    total.notes.push('subtotal and tax found do not add up to it');
  } else if (receipt && !total.notes.some((n) => n.startsWith('equals'))) {
    // A till's total is rounded for cash and often misread by OCR: alone, it is less sure than an invoice's.
    total.support -= 0.1;
    total.notes.push('no other amount on the receipt confirms it');
  }
  chosen.set('total_amount', { ...total, candidate: { ...total.candidate, field: 'total_amount' } });

  const fitting = subtotals.flatMap((s) => taxes.flatMap((x) => adjustments.map((r) => [s, x, r] as const))).filter(([s, x, r]) => agree(s.amount! + x.amount! + r.amount, total.amount));
  if (fitting.length) {
    const [s, x, r] = fitting.sort((a, b) => b[0].score + b[1].score - (a[0].score + a[1].score))[0]!;
    const rounded = adjusted(r, 'and');
    chosen.set('subtotal', { candidate: s, support: 0.15, notes: [`with tax ${x.value}${rounded} makes the total ${total.candidate.value}`] });
    chosen.set('tax_amount', { candidate: x, support: 0.15, notes: [`with subtotal ${s.value}${rounded} makes the total ${total.candidate.value}`] });
    return chosen;
  }
  for (const [field, list, other] of [['subtotal', subtotals, taxes], ['tax_amount', taxes, subtotals]] as const) {
    const best = [...list].sort((a, b) => b.score - a.score)[0];
    if (best) {
      chosen.set(field, { candidate: best, support: other.length ? -0.15 : 0, notes: other.length ? ['does not add up with the other amounts'] : [] });
      continue;
    }
    // The missing one is what the total leaves after the other, when that amount is printed.
    const known = [...other].sort((a, b) => b.score - a.score)[0];
    if (!known) continue;
    const rest = Math.round((total.amount - known.amount!) * 100) / 100;
    const printed = unlabelled.find((a) => agree(a.amount!, rest));
    if (printed && rest > 0) {
      chosen.set(field, { candidate: { ...printed, field, score: 0.5 }, support: 0.2, notes: [`printed amount equal to total ${total.candidate.value} minus ${known.value}`] });
    }
  }
  return chosen;
}
