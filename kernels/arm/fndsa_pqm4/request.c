/* The request buffer of the pqm4 API's builds (api.h, sign.c): one for all, as one call runs at a time. */
#include <stdint.h>

#include "api.h"

uint8_t fndsa_pqm4_request[FNDSA_PQM4_REQUEST_BYTES];
