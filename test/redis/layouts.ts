import type { SharedDimension, SharedLayout } from "../../src/store/shared-store.js";

/** A dimension of `limit` per `windowMs`, holding `capacity` (default: the limit). */
export function dim(name: string, limit: number, windowMs = 60_000, capacity = limit): SharedDimension {
  return { name, limit, windowMs, capacity };
}

/** A layout, full when new unless `initialFraction` says otherwise. */
export function layout(dimensions: SharedDimension[], options: Partial<SharedLayout> = {}): SharedLayout {
  return { dimensions, concurrency: undefined, initialFraction: 1, ...options };
}
