/** A compiled selector expression: a predicate over a label map. */
export type LabelPredicate = (labels: Readonly<Record<string, string>>) => boolean;

/** The predicate of the empty selector, `all()` and `global()`: every label map matches. */
export const matchAll: LabelPredicate = () => true;
