// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/lib/listen.c: what --listen accepts and what it
 * refuses, with the reason; and a socket bound twice, which says so. The
 * server itself is tested end to end (tests/integration/listen.bats).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/listen.h"

static void assert_parsed(const char *arg, int family, unsigned int port, const char *text)
{
	struct nm_listen_addr a;
	char err[160] = "";

	assert_int_equal(nm_listen_parse(arg, &a, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(a.family, family);
	assert_int_equal(a.port, port);
	assert_string_equal(a.text, text);
	assert_int_equal(a.len, family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	if (family == AF_INET)
		assert_int_equal(ntohs(((struct sockaddr_in *)&a.ss)->sin_port), port);
	else
		assert_int_equal(ntohs(((struct sockaddr_in6 *)&a.ss)->sin6_port), port);
}

static void assert_refused(const char *arg, const char *why)
{
	struct nm_listen_addr a;
	char err[160] = "";

	assert_int_equal(nm_listen_parse(arg, &a, err, sizeof(err)), -EINVAL);
	if (!strstr(err, why))
		fail_msg("'%s': '%s' does not say '%s'", arg, err, why);
}

static void test_port_alone_is_loopback(void **state)
{
	(void)state;
	assert_parsed("9435", AF_INET, 9435, "127.0.0.1:9435");
	assert_parsed(":9435", AF_INET, 9435, "127.0.0.1:9435");
	assert_parsed("1", AF_INET, 1, "127.0.0.1:1");
	assert_parsed("65535", AF_INET, 65535, "127.0.0.1:65535");
}

static void test_addresses(void **state)
{
	(void)state;
	assert_parsed("0.0.0.0:9435", AF_INET, 9435, "0.0.0.0:9435");
	assert_parsed("198.18.0.1:80", AF_INET, 80, "198.18.0.1:80");
	assert_parsed("[::1]:9435", AF_INET6, 9435, "[::1]:9435");
	assert_parsed("[::]:9435", AF_INET6, 9435, "[::]:9435");
	assert_parsed("[2001:db8::1]:9100", AF_INET6, 9100, "[2001:db8::1]:9100");
}

/* #37: a port by its service's name, as ss and tcpdump take it; the address stays numeric */
static void test_service_names(void **state)
{
	(void)state;
	assert_parsed("http-alt", AF_INET, 8080, "127.0.0.1:8080");
	assert_parsed("0.0.0.0:http", AF_INET, 80, "0.0.0.0:80");
	assert_parsed("[::1]:http-alt", AF_INET6, 8080, "[::1]:8080");
	assert_refused(":nm-no-such-service", "port 'nm-no-such-service' is not a number from 1 to "
		       "65535 nor a TCP service's name");
}

static void test_bad_ports(void **state)
{
	(void)state;
	assert_refused("0", "port '0' is not a number from 1 to 65535");
	assert_refused("65536", "port '65536'");
	assert_refused("127.0.0.1:", "port ''");
	assert_refused("127.0.0.1", "port '127.0.0.1'");
	assert_refused("", "port ''");
	assert_refused("94x5", "port '94x5'");
	assert_refused("-1", "port '-1'");
	assert_refused("+80", "port '+80'");
	assert_refused("000009435", "port '000009435'");
	assert_refused("[::1]", "port '1]'");
}

static void test_bad_addresses(void **state)
{
	(void)state;
	/* numeric only: a daemon's start resolves nothing */
	assert_refused("localhost:9435", "address 'localhost' is not a numeric IPv4 address");
	assert_refused("::1:9435", "address '::1'");	/* IPv6 needs its brackets */
	assert_refused("[127.0.0.1]:9435", "address '[127.0.0.1]'");
	assert_refused("1.2.3.4.5:80", "address '1.2.3.4.5'");
	assert_refused("[]:80", "address '[]'");
	assert_refused("[::1:80", "address '[::1'");
	assert_refused("[1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa]:80", "address '[1111");
}

static void test_bound_twice_says_so(void **state)
{
	struct nm_listen *a = NULL, *b;
	struct nm_listen_addr addr;
	char err[160] = "";

	(void)state;
	/* a free port of the ephemeral range, tried until one binds */
	for (unsigned int port = 40000 + (unsigned int)(getpid() % 20000), i = 0; !a && i < 64; i++) {
		char arg[16];

		snprintf(arg, sizeof(arg), "%u", port + i);
		assert_int_equal(nm_listen_parse(arg, &addr, err, sizeof(err)), 0);
		a = nm_listen_bind(&addr, err, sizeof(err));
	}
	assert_non_null(a);
	b = nm_listen_bind(&addr, err, sizeof(err));
	assert_null(b);
	assert_string_equal(err, "bind: Address already in use");
	/* published before any server: kept for it, no error */
	assert_int_equal(nm_listen_publish(a, "x 1\n", 4), 0);
	nm_listen_free(a);
	nm_listen_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_alone_is_loopback),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_service_names),
		cmocka_unit_test(test_bad_ports),
		cmocka_unit_test(test_bad_addresses),
		cmocka_unit_test(test_bound_twice_says_so),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
