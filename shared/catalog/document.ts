/** Where `npm run openapi` writes the published document, relative to the repository (and to the function's asset). */
export const OPENAPI_DOCUMENT = 'shared/contract/openapi.json';
