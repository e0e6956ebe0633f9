/** The viewer's remembered colour scheme (THEMEVIEW-2): its storage key and values, shared by theme.ts and scheme.ts. */
export type Scheme = 'light' | 'dark' | 'auto';
export const schemeStorageKey = 'tessera.colorScheme';
export const isScheme = (value: unknown): value is Scheme => value === 'light' || value === 'dark' || value === 'auto';

/** The stored choice, null when there is none; `refused` when the browser refuses storage. */
export function storedScheme(refused: Scheme | null = null): Scheme | null {
  try {
    const stored = localStorage.getItem(schemeStorageKey);
    return isScheme(stored) ? stored : null;
  } catch {
    return refused;
  }
}
