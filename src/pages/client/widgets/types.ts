/** What the widget renderers get besides the item (VIEW-1): the app records and statuses the page loaded. */
export interface AppView {
  id: string;
  name: string;
  description: string | null;
  iconUrl: string;
  href: string | null;
}

export interface AppStatusView {
  appId: string;
  state: 'up' | 'down' | 'unknown';
  httpStatus: number | null;
  checkedAt: string | null;
}

export interface WidgetContext {
  /** The board the tiles are on: live tiles ask its widget request path (LIVEVIEW-1). */
  boardId: string;
  apps: Map<string, AppView>;
  statuses: Map<string, AppStatusView>;
}

export interface WidgetItem {
  id: string;
  kind: string;
  options: Record<string, unknown>;
}

/** An option read with its type, or the fallback (options are stored unvalidated: PUT-9). */
export const text = (options: Record<string, unknown>, name: string, fallback = ''): string => (typeof options[name] === 'string' ? (options[name] as string) : fallback);
export const flag = (options: Record<string, unknown>, name: string, fallback: boolean): boolean => (typeof options[name] === 'boolean' ? (options[name] as boolean) : fallback);
