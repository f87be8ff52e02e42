import { currentDirectoryVersion } from '../../shared/directory/directory-version.repository.js';
import { useDirectoryVersion } from '../../shared/search/engine-source.js';
import { queueWorker } from '../../shared/workers/dispatch.js';
import { searchHandlers } from '../../shared/workers/search.handlers.js';

// In AWS the in-memory engine loads the index artifact of the directory version the pointer names.
useDirectoryVersion(async () => (await currentDirectoryVersion())?.version ?? null);

export const handler = queueWorker('search', searchHandlers);
