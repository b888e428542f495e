module netledger.dev/cni-client

go 1.22
