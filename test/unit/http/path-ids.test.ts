import { pathIdsWellFormed, pathParameterShape } from '../../../shared/http/path-ids.js';
import { ROUTES } from '../../../shared/catalog/routes.js';
import { newId } from '../../../shared/core/ids.js';

describe('ids in paths are checked by shape', () => {
  const email = newId('em');
  test.each([
    ['/api/public/v1/emails/{id}/', { id: email }, true],
    ['/api/public/v1/emails/{id}/', { id: newId('dj') }, false],
    ['/api/public/v1/emails/{id}/', { id: email.toUpperCase() }, false],
    ['/api/public/v1/emails/{id}/', { id: `${email}x` }, false],
    ['/api/public/v1/emails/{id}/approve/', { id: 'em_' + 'u'.repeat(26) }, false], // u is not in the ULID alphabet
    ['/api/public/v1/search/{job_id}/', { job_id: newId('dj') }, true],
    ['/api/public/v1/search/{job_id}/', { job_id: 'dj_' + 'x'.repeat(3000) }, false],
    ['/api/public/v1/o/{token}/', { token: 'A'.repeat(32) }, true],
    ['/api/public/v1/o/{token}/', { token: 'A'.repeat(31) + '%' }, false],
    ['/api/console/v1/accounts/{id}/api-keys/{key_id}/', { id: newId('acct'), key_id: newId('key') }, true],
    ['/api/console/v1/accounts/{id}/api-keys/{key_id}/', { id: newId('acct'), key_id: newId('whsec') }, false],
    ['/api/console/v1/sending-accounts/{ea_id}/', { ea_id: newId('ea') }, true],
    ['/api/public/v1/test-emails/{id}/', { id: '3b241101-e2bb-4255-8caf-4136c566a962' }, true],
    ['/api/public/v1/test-emails/{id}/', { id: '3b241101-e2bb-1255-8caf-4136c566a962' }, false],
    ['/api/public/v1/emails/', {}, true],
    ['/api/public/v1/emails/{id}/', {}, false],
  ] as const)('%s with %j → %s', (resource, params, ok) => {
    expect(pathIdsWellFormed(resource, params)).toBe(ok);
  });
});

test('every path parameter of every route has a shape: nothing unchecked reaches DynamoDB', () => {
  const unchecked = ROUTES.flatMap((r) => [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((name) => !pathParameterShape(r.path, name)).map((name) => `${r.method} ${r.path} {${name}}`));
  expect(unchecked).toEqual([]);
  // The web app's sequence id, over-long or of another kind, is a 404 before any read.
  expect(pathIdsWellFormed('/api/app/v1/sequences/{sequence_id}/', { sequence_id: `sq_${'0'.repeat(26)}` })).toBe(true);
  expect(pathIdsWellFormed('/api/app/v1/sequences/{sequence_id}/', { sequence_id: `sq_${'0'.repeat(2000)}` })).toBe(false);
  expect(pathIdsWellFormed('/api/app/v1/sequences/{sequence_id}/replies/', { sequence_id: `em_${'0'.repeat(26)}` })).toBe(false);
});
