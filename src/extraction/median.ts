/** The middle value (the upper one of an even count), or undefined when there are none. */
export function median(values: number[]): number | undefined {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}
