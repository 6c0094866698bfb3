export { type AddressVerdict, checkAddress, guardedLookup } from './address-guard';
export { PublicFetcher, type FetchBounds, type PublicFetchOptions, type PublicFetchResult } from './public-fetch';
