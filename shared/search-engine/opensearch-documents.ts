import type { Client } from '@opensearch-project/opensearch';

/**
 * Deleting people's documents from every index the `people` alias names (an erasure, shared/privacy/directory-erasure.ts),
 * apart from the engine (opensearch-engine.ts) so that the function that carries out an erasure does not bundle the
 * query language and its geography.
 */
export const PEOPLE_ALIAS = 'people';

export async function aliasedIndices(client: Client, alias = PEOPLE_ALIAS): Promise<string[]> {
  const response = await client.indices.getAlias({ name: alias }, { ignore: [404] });
  return response.statusCode === 404 ? [] : Object.keys(response.body as Record<string, unknown>);
}

/** Delete the documents of `ids` from every aliased index; a document already gone is fine. Answers how many were deleted. */
export async function deletePeopleDocuments(client: Client, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  let deleted = 0;
  for (const index of await aliasedIndices(client)) {
    const body = ids.map((id) => ({ delete: { _index: index, _id: id } }));
    const response = (await client.bulk({ body: body as never })).body as unknown as { items: { delete: { status: number; error?: { reason: string } } }[] };
    for (const item of response.items) {
      if (item.delete.status === 200) deleted++;
      else if (item.delete.status !== 404) throw new Error(`deleting an erased person from ${index} failed: ${item.delete.error?.reason ?? item.delete.status}`);
    }
  }
  return deleted;
}
