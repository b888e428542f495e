import type { OnFileWarning } from '@netledger/datastore-file';
import type { DatastoreOpenerOptions } from './store-opener.js';

/**
 * The file store's `onWarning` for the app's `onFileWarning`: each warning as datastore-file's
 * one line (`formatFileWarning`), so no app imports the store package to say it. Undefined when
 * the app wants no warnings.
 */
export async function fileStoreWarnings(
  options: DatastoreOpenerOptions,
): Promise<OnFileWarning | undefined> {
  const tell = options.onFileWarning;
  if (tell === undefined) return undefined;
  const { formatFileWarning } = await import('@netledger/datastore-file');
  return (w) => tell(formatFileWarning(w));
}
