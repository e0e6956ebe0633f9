// eslint-disable-next-line @typescript-eslint/no-require-imports
export const serviceVersion: string = require('../../package.json').version;
