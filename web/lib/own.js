// own.js - a value looked up by a key that came from outside (a link, an
// attribute, a model file, the catalogue): only the object's own keys
// count, so "constructor", "toString" or "__proto__" find nothing instead of
// what every object inherits from Object.prototype.

/** obj[key] when obj has `key` as its own property, else undefined. */
export function own(obj, key) {
  return obj != null && typeof obj === 'object' && Object.hasOwn(obj, key) ? obj[key] : undefined;
}
