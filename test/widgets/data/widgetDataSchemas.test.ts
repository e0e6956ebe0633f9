import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { pickCustomApiData } from '../../../src/customApis/pick';
import { parseContainerList } from '../../../src/integrations/clients/docker';
import { viewDockerContainers } from '../../../src/widgets/data/kinds/dockerContainers';

/**
 * The widgets' data schemas (openapi/components/widget-data/) hold what the kinds produce, at their bounds too. The
 * widget data operation's envelope references them once it is declared; until then this test keeps them honest.
 */
const root = path.join(__dirname, '../../../openapi/components');
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const file of ['custom-apis.yaml', 'widget-data/customApi.yaml', 'widget-data/dockerContainers.yaml']) {
  ajv.addSchema(parse(readFileSync(path.join(root, file), 'utf8')), `file:///components/${file}`);
}
const validate = (ref: string, data: unknown) => {
  const check = ajv.getSchema(ref)!;
  return check(data) ? 'valid' : ajv.errorsText(check.errors);
};

describe('DOCK-3, CAPI-6: the kinds\' data against their declared schemas', () => {
  it('DOCK-3, DOCK-5: a container list, odd and oversized entries included, and a column-narrowed view', () => {
    const answer = [
      { Id: 'a'.repeat(64), Names: ['/web'], Image: 'nginx:1', State: 'running', Status: 'Up 2 hours', Created: 1795902390 },
      { Id: 'b', Names: [], Image: 'x'.repeat(5000), State: 's'.repeat(500), Status: 1, Created: 'soon' },
      ...Array.from({ length: 1200 }, (_, i) => ({ Id: `id${i}`, Names: [`/c${i}`] })),
    ];
    const data = { containers: parseContainerList(answer, 'd') };
    expect(validate('file:///components/widget-data/dockerContainers.yaml#/DockerContainersData', data)).toBe('valid');
    expect(validate('file:///components/widget-data/dockerContainers.yaml#/DockerContainersData', viewDockerContainers(data, { columns: ['state'] }))).toBe('valid');
  });

  it('CAPI-6: fields and list data, long text, long lists, objects and nothing found', () => {
    const fields = [
      { label: 'A', path: '$.a', format: 'number' as const },
      { label: 'All', path: '$.l[*]', format: 'text' as const },
      { label: 'None', path: '$.none', format: 'date' as const },
    ];
    const answer = { a: 'y'.repeat(5000), l: [...Array.from({ length: 300 }, (_, i) => i), { o: 1 }, 'z'.repeat(5000)], rows: Array.from({ length: 300 }, () => ({ a: { o: 1 } })) };
    const ref = 'file:///components/widget-data/customApi.yaml#/CustomApiData';
    expect(validate(ref, pickCustomApiData({ id: 'd', name: 'D', fields, list: null }, answer))).toBe('valid');
    expect(validate(ref, pickCustomApiData({ id: 'd', name: 'D', fields, list: { path: '$.rows', limit: 100 } }, answer))).toBe('valid');
    expect(validate(ref, pickCustomApiData({ id: 'd', name: 'D', fields, list: { path: '$.missing', limit: 5 } }, answer))).toBe('valid');
    expect(validate(ref, { definitionId: 'd', name: 'D', mode: 'fields', fields: [{ label: 'x', format: 'hex', value: 1 }] })).not.toBe('valid');
  });
});
