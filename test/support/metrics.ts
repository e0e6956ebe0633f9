/** The value of one sample of a Prometheus exposition (0 when absent): the first line of `name` with every label given. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((label) => line.includes(label))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}
