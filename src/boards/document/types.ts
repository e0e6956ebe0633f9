import type { components } from '../../../generated/api';

type Schemas = components['schemas'];

export type BoardDocument = Schemas['BoardDocument'];
export type BoardSection = Schemas['BoardSection'];
export type BoardSectionInput = Schemas['BoardSectionInput'];
export type BoardItem = Schemas['BoardItem'];
export type BoardItemInput = Schemas['BoardItemInput'];
export type ItemPosition = Schemas['ItemPosition'];
export type DynamicSectionPosition = Schemas['DynamicSectionPosition'];
export type BreakpointLayout = Schemas['BreakpointLayout'];
export type ItemAdvancedOptions = Schemas['ItemAdvancedOptions'];
export type DynamicSectionOptions = Schemas['DynamicSectionOptions'];
export type SaveBoardRequest = Schemas['SaveBoardRequest'];

/** What PUT replaces: the sections and items of a board. */
export interface BoardContent {
  sections: BoardSectionInput[];
  items: BoardItemInput[];
}

export type SectionKind = 'category' | 'empty' | 'dynamic';

/** Rows as stored (camelCased by the knex mappers). */
export interface LayoutRow {
  id: string;
  boardId: string;
  name: string;
  columnCount: number;
  breakpoint: number;
}

export interface SectionRow {
  id: string;
  boardId: string;
  kind: string;
  xOffset: number | null;
  yOffset: number | null;
  name: string | null;
  options: Record<string, unknown> | null;
}

export interface SectionLayoutRow {
  sectionId: string;
  layoutId: string;
  parentSectionId: string | null;
  xOffset: number;
  yOffset: number;
  width: number;
  height: number;
}

export interface ItemRow {
  id: string;
  boardId: string;
  kind: string;
  options: Record<string, unknown>;
  advancedOptions: Record<string, unknown>;
}

export interface ItemLayoutRow {
  itemId: string;
  sectionId: string;
  layoutId: string;
  xOffset: number;
  yOffset: number;
  width: number;
  height: number;
}

export interface BindingRow {
  itemId: string;
  integrationId: string;
}
