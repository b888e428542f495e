/** The netledgerctl version written into `ipam check` reports and required by `ipam release`. */
export const CTL_VERSION = 'v0.1.0';
