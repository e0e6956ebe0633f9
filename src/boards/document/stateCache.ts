/**
 * The rows of recently written boards, per instance, so that a write need not read the whole board again: each entry
 * is the board as of one revision (the internal revision every board write moves, CONC-3, DOC-6). A write takes the
 * board's row lock first, which answers the revision; the cached rows are used only when they are of the revision
 * right before it, so what another instance wrote in between is never missed. Entries are set only after their write
 * committed, and replaced by the next write's. Bounded by rows; least recently used boards go first.
 */
import type { BoardContentState } from './store';

export class BoardStateCache {
  private readonly entries = new Map<string, BoardContentState>();
  private rows = 0;

  constructor(private readonly maxRows: number) {}

  /** The board's rows as of `revision`, if this instance holds them. */
  get(boardId: string, revision: number): BoardContentState | undefined {
    const entry = this.entries.get(boardId);
    if (!entry || entry.board.revision !== revision) return undefined;
    this.entries.delete(boardId);
    this.entries.set(boardId, entry);
    return entry;
  }

  /** Keeps the board's rows as of their revision (call after the write that made them committed). */
  set(state: BoardContentState): void {
    this.delete(state.board.id);
    const size = sizeOf(state);
    if (size > this.maxRows) return;
    this.entries.set(state.board.id, state);
    this.rows += size;
    for (const [boardId] of this.entries) {
      if (this.rows <= this.maxRows) break;
      this.delete(boardId);
    }
  }

  private delete(boardId: string): void {
    const old = this.entries.get(boardId);
    if (!old) return;
    this.entries.delete(boardId);
    this.rows -= sizeOf(old);
  }
}

const sizeOf = (state: BoardContentState) =>
  1 + state.layouts.length + state.sections.length + state.sectionLayouts.length + state.items.length + state.itemLayouts.length + state.bindings.length;
