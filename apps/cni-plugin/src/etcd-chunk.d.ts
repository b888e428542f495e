/** The etcd adapter chunk: brotli-compressed, base64-encoded CommonJS text (from build.mjs). */
declare module 'netledger:etcd-chunk' {
  const code: string;
  export default code;
}
