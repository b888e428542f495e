export {
  NETLEDGER_IMAGES,
  fullImageReference,
  imageReference,
  imageTag,
} from './netledger-images.js';
export type { NetledgerImage } from './netledger-images.js';
