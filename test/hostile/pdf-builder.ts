/** A syntactically complete PDF from object bodies (1-based), with a correct xref table. */
export function rawPdf(objects: string[]): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A PDF of `count` empty pages, each its own object, written by hand so that it is cheap to make. */
export function manyPagesPdf(count: number): Buffer {
  const kids = Array.from({ length: count }, (_, i) => `${i + 3} 0 R`).join(' ');
  const pages = Array.from({ length: count }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  return rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count ${count} >>`, ...pages]);
}

/** One page with a media box of `size` points a side and a line of text. */
export function hugePagePdf(size: number): Buffer {
  const content = 'BT /F1 24 Tf 72 72 Td (Invoice No. HUGE-1) Tj ET';
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${size} ${size}] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** `count` pages of one line of text each, but page `broken` of the page tree is a number, not a page. */
export function brokenPagePdf(count: number, broken: number): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const kids: string[] = [];
  for (let n = 1; n <= count; n += 1) {
    kids.push(`${objects.length + 1} 0 R`);
    if (n === broken) {
      objects.push('42');
      continue;
    }
    const content = `BT /F1 12 Tf 72 700 Td (Page ${n}: delivery terms apply to every order.) Tj ET`;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length + 2} 0 R >>`);
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${count} >>`;
  return rawPdf(objects);
}
