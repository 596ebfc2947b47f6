/* Unit tests of the digests (OpenSSL behind lab/sha.h): known vectors, not round trips. */
#include "unit.h"
#include "util/sha.h"

static void test_sha256(void **state)
{
	char hex[BG_SHA256_HEX];

	(void)state;
	bg_sha256_mem("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* RFC 4231, test cases 2 (a key shorter than the block) and 6 (one longer: hashed first). */
static void test_hmac_rfc4231(void **state)
{
	static const char data6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
	unsigned char key6[131];
	char hex[BG_SHA256_HEX];

	(void)state;
	assert_int_equal(bg_hmac_sha256_hex("Jefe", 4, "what do ya want for nothing?", 28, hex), 0);
	assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(key6, 0xaa, sizeof(key6));
	assert_int_equal(bg_hmac_sha256_hex(key6, sizeof(key6), data6, strlen(data6), hex), 0);
	assert_string_equal(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	/* an empty message has a MAC too */
	assert_int_equal(bg_hmac_sha256_hex("key", 3, NULL, 0, hex), 0);
	assert_string_equal(hex, "5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0");
}

static void test_hex_equal(void **state)
{
	char a[BG_SHA256_HEX], b[BG_SHA256_HEX];

	(void)state;
	bg_sha256_mem("abc", 3, a);
	memcpy(b, a, sizeof(b));
	assert_true(bg_sha256_hex_equal(a, b));
	b[63] = b[63] == '0' ? '1' : '0';
	assert_false(bg_sha256_hex_equal(a, b));
	memcpy(b, a, sizeof(b));
	b[0] = b[0] == '0' ? '1' : '0';
	assert_false(bg_sha256_hex_equal(a, b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_hex_equal),
	};

	return cmocka_run_group_tests_name("sha", tests, NULL, NULL);
}
