/** The Kubernetes store chunk: brotli-compressed, base64-encoded CommonJS text (from build.mjs). */
declare module 'netledger:k8s-chunk' {
  const code: string;
  export default code;
}
