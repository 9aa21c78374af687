/**
 * Which Flags replica each Lambda@Edge region reads (design decision 3: the guard reads the nearest
 * replica). Lambda@Edge runs in the region of the regional edge cache that served the viewer, which
 * can be almost any commercial region, so the map covers every region below. A region missing from
 * the map (a region launched later) reads from the table's home region.
 */

/** Approximate location (latitude, longitude in degrees) of AWS commercial regions. */
export const REGION_LOCATIONS: Readonly<Record<string, readonly [number, number]>> = {
  'us-east-1': [38.9, -77.4],
  'us-east-2': [40.0, -83.0],
  'us-west-1': [37.4, -122.0],
  'us-west-2': [45.8, -119.7],
  'ca-central-1': [45.5, -73.6],
  'ca-west-1': [51.0, -114.1],
  'mx-central-1': [20.6, -100.4],
  'sa-east-1': [-23.5, -46.6],
  'eu-west-1': [53.3, -6.3],
  'eu-west-2': [51.5, -0.1],
  'eu-west-3': [48.9, 2.4],
  'eu-central-1': [50.1, 8.7],
  'eu-central-2': [47.4, 8.5],
  'eu-north-1': [59.3, 18.1],
  'eu-south-1': [45.5, 9.2],
  'eu-south-2': [41.6, -0.9],
  'il-central-1': [32.1, 34.8],
  'me-south-1': [26.1, 50.6],
  'me-central-1': [24.5, 54.4],
  'af-south-1': [-33.9, 18.4],
  'ap-south-1': [19.1, 72.9],
  'ap-south-2': [17.4, 78.5],
  'ap-east-1': [22.3, 114.2],
  'ap-east-2': [25.0, 121.5],
  'ap-northeast-1': [35.7, 139.7],
  'ap-northeast-2': [37.6, 127.0],
  'ap-northeast-3': [34.7, 135.5],
  'ap-southeast-1': [1.35, 103.8],
  'ap-southeast-2': [-33.9, 151.2],
  'ap-southeast-3': [-6.2, 106.8],
  'ap-southeast-4': [-37.8, 145.0],
  'ap-southeast-5': [3.1, 101.7],
  'ap-southeast-7': [13.7, 100.5],
};

/** A region name as AWS spells it (`eu-west-1`, `us-gov-west-1`, `ap-southeast-7`). */
export const REGION_PATTERN = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/;

const toRad = (deg: number): number => (deg * Math.PI) / 180;

/** Great-circle distance in km between two regions of {@link REGION_LOCATIONS}. */
export function regionDistanceKm(a: string, b: string): number {
  const pa = REGION_LOCATIONS[a];
  const pb = REGION_LOCATIONS[b];
  if (pa === undefined || pb === undefined) return Number.POSITIVE_INFINITY;
  const dLat = toRad(pb[0] - pa[0]);
  const dLon = toRad(pb[1] - pa[1]);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(toRad(pa[0])) * Math.cos(toRad(pb[0])) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * For every region of {@link REGION_LOCATIONS}, the nearest of `tableRegions` (the home region first,
 * then the replicas). Ties go to the earlier table region, so the home region wins a tie.
 *
 * @example
 * nearestReplicaMap(['us-west-2', 'eu-west-1'])['eu-central-1']; // 'eu-west-1'
 * nearestReplicaMap(['us-west-2', 'eu-west-1'])['us-east-1'];    // 'us-west-2'
 */
export function nearestReplicaMap(tableRegions: readonly string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const edgeRegion of Object.keys(REGION_LOCATIONS)) {
    let best: string | undefined;
    let bestKm = Number.POSITIVE_INFINITY;
    for (const candidate of tableRegions) {
      const km = candidate === edgeRegion ? 0 : regionDistanceKm(edgeRegion, candidate);
      if (km < bestKm) {
        best = candidate;
        bestKm = km;
      }
    }
    if (best !== undefined && bestKm !== Number.POSITIVE_INFINITY) map[edgeRegion] = best;
  }
  return map;
}

/**
 * Regions of CloudFront's regional edge caches, where origin-facing Lambda@Edge functions run (their
 * logs and EMF metrics land in these regions). The dashboard graphs the guard's metrics from each.
 */
export const LAMBDA_EDGE_REGIONS: readonly string[] = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'sa-east-1',
  'eu-central-1',
  'eu-west-1',
  'eu-west-2',
  'ap-south-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-southeast-1',
  'ap-southeast-2',
];
