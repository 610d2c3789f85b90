/** /readyz once it answers 200 (the OCR pool starts in the background), a bounded number of tries; the last answer otherwise. */
export async function readiness(url: string): Promise<Response> {
  let res = await fetch(`${url}/readyz`);
  for (let attempt = 0; attempt < 100 && res.status !== 200; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    res = await fetch(`${url}/readyz`);
  }
  return res;
}
