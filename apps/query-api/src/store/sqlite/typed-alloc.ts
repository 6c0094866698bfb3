/** The typed arrays the ad columns and their indexes are made of. */
export type TypedArray = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

export interface TypedArrayOf<A extends TypedArray> {
  new (length: number): A;
  new (buffer: SharedArrayBuffer): A;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): A;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * Where a new column or index lives: in ordinary memory (a reader deriving its own columns), or in shared memory (the
 * live writer's, published to the query workers without a copy: shared-columns.ts).
 */
export type Alloc = <A extends TypedArray>(make: TypedArrayOf<A>, length: number) => A;

export const localAlloc: Alloc = (make, length) => new make(length);

export const sharedAlloc: Alloc = (make, length) => new make(new SharedArrayBuffer(length * make.BYTES_PER_ELEMENT));

/**
 * A typed array's value at an index the caller has bounded by the array's own length or offsets (0 past the end, as
 * a zero-filled array reads): one place for what noUncheckedIndexedAccess asks of every such read.
 */
export function at(array: TypedArray, index: number): number {
  return array[index] ?? 0;
}
