import {
  LAMBDA_EDGE_REGIONS,
  nearestReplicaMap,
  REGION_LOCATIONS,
  REGION_PATTERN,
  regionDistanceKm,
} from './regions';

describe('nearestReplicaMap', () => {
  const tableRegions = ['eu-west-1', 'us-east-1', 'ap-northeast-1'];
  const map = nearestReplicaMap(tableRegions);

  it.each([
    ['eu-central-1', 'eu-west-1'],
    ['eu-west-2', 'eu-west-1'],
    ['us-west-2', 'us-east-1'],
    ['sa-east-1', 'us-east-1'],
    ['ap-northeast-2', 'ap-northeast-1'],
    ['ap-southeast-2', 'ap-northeast-1'],
    ['eu-west-1', 'eu-west-1'],
  ])('sends the edge region %s to the replica in %s', (edge, replica) => {
    expect(map[edge]).toBe(replica);
  });

  it('covers every regional edge cache region and only names table regions', () => {
    for (const edge of LAMBDA_EDGE_REGIONS) expect(tableRegions).toContain(map[edge]);
    expect(new Set(Object.values(map))).toEqual(new Set(tableRegions));
  });

  it('reads the home region everywhere when there are no replicas', () => {
    expect(new Set(Object.values(nearestReplicaMap(['us-west-2'])))).toEqual(new Set(['us-west-2']));
    expect(Object.keys(nearestReplicaMap(['us-west-2']))).toHaveLength(Object.keys(REGION_LOCATIONS).length);
  });

  it('maps a table region missing from the location table to itself only', () => {
    const m = nearestReplicaMap(['eu-west-1', 'xx-new-1']);
    expect(Object.values(m)).not.toContain('xx-new-1');
  });

  it('measures great-circle distances (Ireland–Frankfurt about 1,090 km)', () => {
    expect(regionDistanceKm('eu-west-1', 'eu-central-1')).toBeGreaterThan(1000);
    expect(regionDistanceKm('eu-west-1', 'eu-central-1')).toBeLessThan(1200);
    expect(REGION_PATTERN.test('ap-southeast-7')).toBe(true);
    expect(REGION_PATTERN.test('Europe')).toBe(false);
  });
});
