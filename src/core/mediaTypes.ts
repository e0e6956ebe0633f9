/** The media type of a Content-Type or Accept entry: lower case, without parameters. */
export function mediaTypeOf(value: string | undefined): string {
  return (value ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * YAML media types accepted for board files (FILE-1). None is one a cross-site form can send, so, like JSON, a
 * cookie-authenticated write may carry them (SEC-2).
 */
export const yamlMediaTypes: ReadonlySet<string> = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

export const isYamlContentType = (value: string | undefined) => yamlMediaTypes.has(mediaTypeOf(value));

/** Whether an Accept header prefers YAML to JSON (by its q-values, then by order). */
export function prefersYaml(accept: string | undefined): boolean {
  if (!accept) return false;
  let best: { yaml: boolean; q: number } | null = null;
  for (const entry of accept.split(',')) {
    const type = mediaTypeOf(entry);
    const yaml = yamlMediaTypes.has(type);
    if (!yaml && type !== 'application/json') continue;
    const q = Number(/;\s*q=([0-9.]+)/i.exec(entry)?.[1] ?? 1);
    if (best === null || q > best.q) best = { yaml, q };
  }
  return best?.yaml ?? false;
}
