/**
 * The board tools offered over the Model Context Protocol (MCP-2): each tool is a REST operation, its input schema
 * that operation's path and query parameters and body from the OpenAPI document (one source of truth), run through
 * RequestContext.invoke with the same rules and answers.
 */
import { dereferencedDocument } from '../core/openapiDocument';
import type { InvokeInput, OperationId } from '../core/operation';
import { annotationsOf, HttpMethod, OperationFacts, ToolAnnotations } from './annotations';
import { portableSchema } from './portableSchema';

type Schema = Record<string, any>;

export interface ToolDefinition {
  name: string;
  description: string;
  /** The operation the tool runs; `pick` chooses one by the arguments when a tool stands for several. */
  operationId: OperationId;
  pick?: (args: Record<string, unknown>) => OperationId;
  /** Where a body that is not an object of properties goes among the tool's arguments. */
  bodyKey?: string;
}

const safeLoop =
  'Work on boards in a loop: read the board (get_board), plan the change (plan_board_save), save it with the version you read as expectedVersion (save_board), and on a 409 conflict read again, redo the change on the fresh board and retry; never resend a stale body.';

/** The tools, in the order an agent meets them. */
export const toolDefinitions: ToolDefinition[] = [
  {
    name: 'get_board',
    operationId: 'getBoard',
    pick: (args) => (args.id === undefined && typeof args.name === 'string' ? 'getBoardByName' : 'getBoard'),
    description: `Read a whole board document (layouts, sections, items with a position per layout, version) by \`id\` or by \`name\`. Its \`version\` is the expectedVersion of your next save. ${safeLoop}`,
  },
  { name: 'list_boards', operationId: 'listBoards', description: 'List the boards you can see, with their ids and names.' },
  {
    name: 'plan_board_save',
    operationId: 'planBoardSave',
    description:
      'Dry run of save_board with the same arguments: lists the sections and items it would add, remove and update, the parts the save rules would ignore and warnings (misspelled options, overlaps, missing positions). Writes nothing. Run it before every save_board.',
  },
  {
    name: 'save_board',
    operationId: 'saveBoard',
    description: `Replace the sections and items of a board (items missing from the arguments are deleted). Always send expectedVersion (the version you read): a 409 "This board was modified by another request" means someone else changed the board; read it again and redo your change. ${safeLoop}`,
  },
  { name: 'add_item', operationId: 'addBoardItem', description: 'Add one widget to the first empty section of a board (boardId and kind; options optional). Answers the new itemId.' },
  { name: 'update_item', operationId: 'updateBoardItem', description: 'Change one item (options, advancedOptions, integrationIds replaced whole; layouts entries update existing positions). Answers the board.' },
  { name: 'delete_item', operationId: 'deleteBoardItem', description: 'Delete one item of a board. Answers the board.' },
  { name: 'add_section', operationId: 'addBoardSection', bodyKey: 'section', description: 'Add one section (category, empty or dynamic) to a board. Answers the board.' },
  { name: 'update_section', operationId: 'updateBoardSection', bodyKey: 'section', description: 'Replace one section (its kind never changes). Answers the board.' },
  { name: 'delete_section', operationId: 'deleteBoardSection', description: 'Delete one section; refused while it holds items. Answers the board.' },
  { name: 'plan_layouts', operationId: 'planBoardLayouts', description: 'Dry run of change_layouts: layouts created (and the layout each clones positions from), deleted and updated.' },
  {
    name: 'change_layouts',
    operationId: 'saveBoardLayouts',
    description: 'Replace the breakpoint layouts of a board. New layouts get server ids (read the board back); positions are cloned and refitted.',
  },
  { name: 'board_history', operationId: 'getBoardHistory', description: 'The history of a board, newest first: revision, version, who, when, which operation, what changed.' },
  { name: 'board_diff', operationId: 'getBoardDiff', description: 'What changed between two revisions of a board (to defaults to now).' },
  { name: 'restore_board', operationId: 'restoreBoard', description: 'Put a board back as it was after a revision, as one new revision. Send expectedVersion.' },
  { name: 'export_board', operationId: 'exportBoard', description: 'A board as a portable board file (layouts by name, apps and integrations by their names).' },
  {
    name: 'import_board',
    operationId: 'importBoard',
    description: 'Create a board from a board file, or with onConflict=replace make the board of that name exactly the file; dryRun=true answers the plan and writes nothing.',
  },
  {
    name: 'apply_boards',
    operationId: 'applyBoardSet',
    description: 'Apply a set of board files as one (all or nothing) under a managedBy label; dryRun=true answers the plan; prune=true also deletes boards of the label the set does not name; a board changed on the server since its file\'s base refuses the set (409) unless force=true overwrites it (FLEET-16).',
  },
  { name: 'board_drift', operationId: 'getBoardDrift', description: 'How a provisioned board differs from the file it was provisioned from (added: what the live board has and the file does not).' },
  { name: 'create_board', operationId: 'createBoard', description: 'Create a board (name, columnCount, isPublic). Answers its boardId.' },
  { name: 'duplicate_board', operationId: 'duplicateBoard', description: 'Copy a board under a new name.' },
  { name: 'rename_board', operationId: 'renameBoard', description: 'Rename a board.' },
  { name: 'delete_board', operationId: 'deleteBoard', description: 'Delete a board and everything on it.' },
  { name: 'list_apps', operationId: 'listApps', description: 'List the apps you can use (app widgets refer to them by options.appId).' },
  { name: 'create_app', operationId: 'createApp', description: 'Create an app, or reference the existing one with the same name and href. Answers its appId.' },
  {
    name: 'get_item_data',
    operationId: 'getItemData',
    description:
      'Read-only: the live data of one item (id: the board, itemId: the item): one result per integration bound to it, status ok with data of the widget kind\'s shape or error with a message; live false for kinds without live data. Same rules as the board: only items of boards you can view.',
  },
  { name: 'list_integrations', operationId: 'listIntegrations', description: 'List the integrations you can see; permissions.hasUseAccess says whether you may bind one to an item.' },
];

interface OperationShape {
  parameters: { name: string; in: string; required?: boolean; schema: Schema; description?: string }[];
  body?: { required: boolean; schema: Schema };
  method: HttpMethod;
  path: string;
  /** CONC-6: the operation takes `If-Match` (AGENT-5: how an applied proposal is guarded in the write's own transaction). */
  ifMatch: boolean;
  reachesUpstream: boolean;
}

/** Where each argument of a tool goes when its operation is invoked. */
interface ArgumentPlan {
  path: string[];
  query: string[];
  /** Body properties taken from the top level of the arguments, or the one argument that holds the whole body. */
  body: { flat: string[] } | { key: string } | null;
}

export interface Tool extends ToolDefinition {
  inputSchema: Schema & { type: 'object' };
  arguments: Partial<Record<OperationId, ArgumentPlan>>;
  /** AGENT-1: derived from the operation (annotationsOf). */
  annotations: ToolAnnotations;
  /** The operation's method and path (`/api/boards/{id}`), and whether it takes If-Match. */
  method: HttpMethod;
  path: string;
  ifMatch: boolean;
  /** AGENT-4: the dry run of a writing tool's operation (PLAN rules), when the document has one. */
  dryRun: DryRun | null;
}

/** A dry run: the operation that plans the write with the same arguments, and the query it adds (`dryRun=true`). */
export interface DryRun {
  operationId: OperationId;
  query?: Record<string, unknown>;
}

/**
 * AGENT-4: the dry run of a write, from the document: the same operation with `dryRun=true` when it takes that query
 * parameter (FILE, FLEET), else the POST at the write's path plus `/plan` that takes the write's own body (PLAN-1:
 * the PUT's, not the DELETE's at the same path; PLAN-5); none for a read.
 */
export function dryRunOf(document: Schema, shape: OperationShape, operationId: OperationId): DryRun | null {
  if (shape.method === 'get' || shape.path.endsWith('/plan')) return null;
  if (shape.parameters.some((p) => p.in === 'query' && p.name === 'dryRun')) return { operationId, query: { dryRun: true } };
  const plan = (document.paths?.[`${shape.path}/plan`] as Schema | undefined)?.post;
  const planBody = plan?.requestBody?.content?.['application/json']?.schema;
  if (!plan || !shape.body || JSON.stringify(planBody) !== JSON.stringify(shape.body.schema)) return null;
  return { operationId: plan.operationId as OperationId };
}

/** The facts of an operation the annotations are derived from (AGENT-1). */
export function factsOf(shape: OperationShape): OperationFacts {
  const body = shape.body?.schema;
  const bodyNames = body?.type === 'object' && body.properties ? Object.keys(body.properties) : [];
  return { method: shape.method, path: shape.path, argumentNames: [...shape.parameters.map((p) => p.name), ...bodyNames], reachesUpstream: shape.reachesUpstream };
}

export function operationShape(document: Schema, operationId: OperationId): OperationShape {
  for (const [path, item] of Object.entries(document.paths ?? {}) as [string, Schema][]) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (operation?.operationId !== operationId) continue;
      const all = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      const parameters = all.filter((p: Schema) => p.in === 'path' || p.in === 'query');
      const json = operation.requestBody?.content?.['application/json']?.schema;
      return {
        parameters,
        body: json ? { required: operation.requestBody.required === true, schema: json } : undefined,
        method,
        path,
        ifMatch: all.some((p: Schema) => p.in === 'header' && String(p.name).toLowerCase() === 'if-match'),
        reachesUpstream: operation['x-reaches-upstream'] === true,
      };
    }
  }
  throw new Error(`MCP tool for unknown operation ${operationId}`);
}

/** The input schema of one operation's arguments, and where each argument goes. */
function argumentsOf(shape: OperationShape, bodyKey = 'body'): { properties: Schema; required: string[]; plan: ArgumentPlan } {
  const properties: Schema = {};
  const required: string[] = [];
  const plan: ArgumentPlan = { path: [], query: [], body: null };
  for (const parameter of shape.parameters) {
    properties[parameter.name] = parameter.description ? { ...parameter.schema, description: parameter.description } : parameter.schema;
    if (parameter.required) required.push(parameter.name);
    (parameter.in === 'path' ? plan.path : plan.query).push(parameter.name);
  }
  const body = shape.body?.schema;
  if (body && body.type === 'object' && body.properties && !body.oneOf && !body.anyOf && !Object.keys(body.properties).some((name) => name in properties)) {
    Object.assign(properties, body.properties);
    required.push(...(body.required ?? []));
    plan.body = { flat: Object.keys(body.properties) };
  } else if (body) {
    properties[bodyKey] = body;
    if (shape.body!.required) required.push(bodyKey);
    plan.body = { key: bodyKey };
  }
  return { properties, required, plan };
}

let built: Tool[] | undefined;

const portable = (schema: Schema) => portableSchema(schema) as Tool['inputSchema'];

/** The tools with their input schemas, built once from the document. */
export function tools(): Tool[] {
  if (built) return built;
  const document = dereferencedDocument() as Schema;
  built = toolDefinitions.map((definition) => {
    const shape = operationShape(document, definition.operationId);
    const operation = {
      annotations: annotationsOf(factsOf(shape)),
      method: shape.method,
      path: shape.path,
      ifMatch: shape.ifMatch,
      dryRun: dryRunOf(document, shape, definition.operationId),
    };
    if (definition.name === 'get_board') {
      const byId = argumentsOf(shape);
      const byName = argumentsOf(operationShape(document, 'getBoardByName'));
      return {
        ...definition,
        ...operation,
        inputSchema: portable({ type: 'object', properties: { ...byId.properties, ...byName.properties }, description: 'Give `id` or `name`.' }),
        arguments: { getBoard: byId.plan, getBoardByName: byName.plan },
      };
    }
    const { properties, required, plan } = argumentsOf(shape, definition.bodyKey);
    return { ...definition, ...operation, inputSchema: portable({ type: 'object', properties, ...(required.length ? { required } : {}) }), arguments: { [definition.operationId]: plan } };
  });
  return built;
}

/** A tool call's arguments as the input of the operation it runs. */
export function invocationOf(tool: Tool, args: Record<string, unknown>): { operationId: OperationId; input: InvokeInput } {
  const operationId = tool.pick?.(args) ?? tool.operationId;
  const plan = tool.arguments[operationId]!;
  const params = Object.fromEntries(plan.path.filter((name) => args[name] !== undefined).map((name) => [name, String(args[name])]));
  const query = Object.fromEntries(plan.query.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  let body: unknown;
  if (plan.body && 'flat' in plan.body) {
    const names = new Set(plan.body.flat);
    body = Object.fromEntries(Object.entries(args).filter(([name]) => names.has(name) || (!plan.path.includes(name) && !plan.query.includes(name))));
  } else if (plan.body) {
    body = args[plan.body.key];
  }
  return { operationId, input: { params, query, body } };
}

interface Issue {
  instancePath: string;
  message?: string;
  [key: string]: unknown;
}

const isIssue = (value: unknown): value is Issue =>
  typeof value === 'object' && value !== null && typeof (value as Issue).instancePath === 'string';

/**
 * MCP-7: a validation issue of the operation a tool ran, at the path of the tool's own arguments. Request validation
 * names the body `/requestBody` and parameters `/path/<name>` or `/query/<name>`, and domain rules name the body
 * `/body`; a tool's arguments are the parameters and the body's properties side by side, or the body under one
 * argument (`bodyKey`).
 */
export function argumentPath(tool: Tool, operationId: OperationId, instancePath: string): string {
  const plan = tool.arguments[operationId];
  const match = /^\/(requestBody|body|path|query)(\/.*)?$/.exec(instancePath);
  if (!plan || !match) return instancePath;
  const rest = match[2] ?? '';
  if (match[1] === 'path' || match[1] === 'query') return rest;
  return plan.body && 'key' in plan.body ? `/${plan.body.key}${rest}` : rest;
}

/** MCP-7: the issues of an error's `data`, their paths in the tool's arguments; other data as it is. */
export function dataInArguments(tool: Tool, operationId: OperationId, data: unknown): unknown {
  const issues = (data as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues) || !issues.every(isIssue)) return data;
  return { ...(data as object), issues: issues.map((issue) => ({ ...issue, instancePath: argumentPath(tool, operationId, issue.instancePath) })) };
}
