/**
 * WDATA-7: each live kind's answer is checked against its declared shape (openapi/components/widget-data/<kind>.yaml,
 * listed in WidgetDataByKind) before it is cached or shown: a service cannot put anything else into an answer.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { dereferencedDocument } from '../../core/openapiDocument';

let byKind: Record<string, object> | null = null;
const compiled = new Map<string, ValidateFunction>();
let ajv: Ajv2020 | null = null;

/** The kinds whose data shape the document declares. */
export function declaredKinds(): string[] {
  return Object.keys(schemas());
}

function schemas(): Record<string, object> {
  if (!byKind) {
    const document = dereferencedDocument() as { components?: { schemas?: Record<string, { properties?: Record<string, object> }> } };
    byKind = document.components?.schemas?.WidgetDataByKind?.properties ?? {};
  }
  return byKind;
}

/** Whether `data` has the declared shape of `widgetKind` (a kind with no declared shape has none that fits). */
export function hasDeclaredShape(widgetKind: string, data: unknown): boolean {
  let validate = compiled.get(widgetKind);
  if (!validate) {
    const schema = schemas()[widgetKind];
    if (!schema) return false;
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
      addFormats(ajv);
    }
    validate = ajv.compile(schema);
    compiled.set(widgetKind, validate);
  }
  return validate(data) === true;
}
