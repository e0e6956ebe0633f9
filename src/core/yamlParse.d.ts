export type YamlRefusal = { kind: 'syntax'; message: string; line: number | null } | { kind: 'aliases'; message: string } | { kind: 'expanded' };

export type YamlData = { value: unknown; numbers: string[]; refusal?: undefined } | { refusal: YamlRefusal };

export function yamlToData(text: string, limits: { maxAliasCount: number; maxExpandedSize: number }): YamlData;

/** At most this many aliases in a YAML body or provisioned file (INPUT-5). */
export const maxAliasCount: number;
