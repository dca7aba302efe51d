import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

/**
 * The generated part of venue-api-client (clients/typescript/src/generated/): TypeScript
 * types from the served OpenAPI document (openapi-typescript) and the version they are for.
 * One function for `npm run client:generate` and for the test that fails when the committed
 * files are stale (test/client/generated.test.ts).
 */
export interface GeneratedFiles {
  'openapi.ts': string;
  'version.ts': string;
}

export async function generateClientFiles(document: OpenAPI3): Promise<GeneratedFiles> {
  // The servers and guides depend on BASE_URL; the types do not, and must not change with it.
  const { servers: _servers, ...rest } = document;
  const doc = { ...rest, info: { ...document.info, description: '' } } as OpenAPI3;
  const ast = await openapiTS(doc, { alphabetize: false, exportType: true });
  const version = document.info.version;
  return {
    'openapi.ts': `${COMMENT_HEADER}${astToString(ast)}`,
    'version.ts': `${COMMENT_HEADER}/** The Service-Version these types describe; the client sends it on every request. */\nexport const SERVICE_VERSION = ${JSON.stringify(version)};\n`,
  };
}
