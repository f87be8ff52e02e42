import { ARTIFACT_MAX_PEOPLE, artifactMaxPeople } from '../../../shared/directory-import/finalize-import.js';

describe('how many people the finalize step builds an in-memory index artifact for', () => {
  test('off Lambda (no memory size in the environment): ARTIFACT_MAX_PEOPLE', () => {
    expect(artifactMaxPeople(0)).toBe(ARTIFACT_MAX_PEOPLE);
  });

  test('with the full 10,240 MB: ARTIFACT_MAX_PEOPLE', () => {
    expect(artifactMaxPeople(10_240)).toBe(ARTIFACT_MAX_PEOPLE);
  });

  test('capped at the default 3,008 MB (-c maxLambdaMemoryMb): what fits at 3.2 GB per million, in thousands', () => {
    expect(artifactMaxPeople(3_008)).toBe(817_000);
    expect(artifactMaxPeople(3_008) % 1_000).toBe(0);
  });

  test('never negative', () => {
    expect(artifactMaxPeople(128)).toBe(0);
  });
});
