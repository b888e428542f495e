export { NETLEDGER_IMAGES, imageReference } from './netledger-images.js';
