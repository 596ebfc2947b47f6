/*
 * Unit tests of the artifact server's path check (lab/artifacts.h): exactly
 * "/artifacts/<64 lowercase hex>/image" names an artifact, as sent, and nothing else.
 */
#include "unit.h"
#include "net/artifacts.h"

#define HEX "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_target_ok(void **state)
{
	char sha[BG_SHA256_HEX], *url;

	(void)state;
	memset(sha, 'x', sizeof(sha));
	assert_true(bg_artifact_target("/artifacts/" HEX "/image", sha));
	assert_string_equal(sha, HEX);
	/* the URL the export and the LAVA worker give is the target the server takes */
	url = bg_artifacts_url("http://10.0.2.2:8788", HEX);
	assert_string_equal(url, "http://10.0.2.2:8788/artifacts/" HEX "/image");
	assert_true(bg_artifact_target(url + strlen("http://10.0.2.2:8788"), sha));
	free(url);
}

static void test_target_refused(void **state)
{
	static const char *const bad[] = {
		"", "/", "/artifacts", "/artifacts/", "/artifacts/" HEX,
		"/artifacts/" HEX "/", "/artifacts/" HEX "/image/",
		"/artifacts/" HEX "/image?x=1", "/artifacts/" HEX "/image?",
		"/artifacts/" HEX "/image#x", "/artifacts/" HEX "/config",
		"/artifacts/" HEX "/imagex", "/artifacts/" HEX "0/image",
		"/artifacts/" "0123456789abcdef" "/image",
		"/artifacts/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef/image",
		"//artifacts/" HEX "/image", "/artifacts//" HEX "/image",
		"/artifacts/" HEX "//image", "/artifacts/../artifacts/" HEX "/image",
		"/artifacts/" HEX "/../" HEX "/image", "/artifacts/%2e%2e/image",
		"/artifacts/" HEX "/%69mage", "/artifacts/" HEX "/image%00",
		"/artifacts/" HEX "/image\r\nX: y", "/artifacts/" HEX "/image\n",
		"artifacts/" HEX "/image", "/ARTIFACTS/" HEX "/image",
		"/artifacts/ " HEX "/image", "/artifacts/" HEX "/image ",
		"/artifacts/g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef/image",
	};
	char sha[BG_SHA256_HEX];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(sha, "untouched", 10);
		if (bg_artifact_target(bad[i], sha))
			fail_msg("'%s' was taken for an artifact", bad[i]);
		assert_string_equal(sha, "untouched");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_ok),
		cmocka_unit_test(test_target_refused),
	};

	return cmocka_run_group_tests_name("artifacts", tests, NULL, NULL);
}
