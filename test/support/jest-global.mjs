// Jest loads its global setup outside its transform pipeline: tsx loads the TypeScript it runs.
import { tsImport } from 'tsx/esm/api';

let loaded;
const shared = () => (loaded ??= tsImport('./shared-dynamodb.ts', import.meta.url));

export const setup = async () => (await shared()).setup();
export const teardown = async () => (await shared()).teardown();
