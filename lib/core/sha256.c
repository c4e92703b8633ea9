/*
 * sha256.c — SHA-256 as lowercase hex, the digest every large golden value
 * and tensor comparison uses (libcrypto's EVP interface, not our own code).
 * Tested by check_core.c against FIPS 180-2's "abc" vector.
 */
#include "config.h"
#include <stdio.h>
#include <openssl/evp.h>
#include "shardcheck.h"

void shc_sha256_hex(const void *data, size_t n, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(data, n, md, &len, EVP_sha256(), NULL);
    for (unsigned i = 0; i < 32 && i < len; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
    out[64] = '\0';
}
