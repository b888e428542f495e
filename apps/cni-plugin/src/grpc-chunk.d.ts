/** The gRPC etcd adapter chunk: brotli-compressed, base64-encoded CommonJS text (from build.mjs). */
declare module 'netledger:grpc-chunk' {
  const code: string;
  export default code;
}
