/* The one file that includes OpenSSL. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "util/sha.h"
#include "util/error.h"

static void to_hex(const unsigned char *md, unsigned len, char hex[BG_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len && i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
}

void bg_sha256_mem(const void *data, size_t len, char hex[BG_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	to_hex(md, mdlen, hex);
}

int bg_sha256_file(const char *path, char hex[BG_SHA256_HEX])
{
	EVP_MD_CTX *ctx;
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	size_t n;
	FILE *f = fopen(path, "rb");
	int ret = 0;

	if (!f)
		return bg_error_errno("cannot open '%s'", path);
	ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		EVP_DigestUpdate(ctx, buf, n);
	if (ferror(f))
		ret = bg_error_errno("cannot read '%s'", path);
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	fclose(f);
	if (!ret)
		to_hex(md, mdlen, hex);
	return ret;
}

int bg_hmac_sha256_hex(const void *key, size_t key_len, const void *data, size_t len,
		       char hex[BG_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;

	if (key_len > INT_MAX)
		return bg_error("hmac key of %zu bytes is too long", key_len);
	/* an empty key or message is still one: OpenSSL wants a pointer for it */
	if (!HMAC(EVP_sha256(), key_len ? key : "", (int)key_len, len ? data : (const void *)"",
		  len, md, &mdlen))
		return bg_error("hmac-sha256 failed");
	to_hex(md, mdlen, hex);
	return 0;
}

bool bg_sha256_hex_equal(const char a[BG_SHA256_HEX], const char b[BG_SHA256_HEX])
{
	return CRYPTO_memcmp(a, b, BG_SHA256_HEX - 1) == 0;
}
