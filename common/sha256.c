/* SHA-256 (FIPS 180-4). */
#include "sha256.h"
#include "error.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One round on the eight working variables, named in their turn: the
 * variables are renamed rather than moved (an event's digest is taken for
 * each of 100,000 lines in a rebuild of the index). */
#define ROUND(a, b, c, d, e, f, g, h, i)                                                       \
	do {                                                                                   \
		uint32_t t1 = h + (ROR32(e, 6) ^ ROR32(e, 11) ^ ROR32(e, 25)) +                   \
			      ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];                         \
		uint32_t t2 = (ROR32(a, 2) ^ ROR32(a, 13) ^ ROR32(a, 22)) +                       \
			      ((a & b) ^ (a & c) ^ (b & c));                                     \
		d += t1;                                                                       \
		h = t1 + t2;                                                                   \
	} while (0)

/* Mixes one 64-byte block into the state h. */
static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6],
			hh = h[7];

	for (int i = 0; i < 16; i++)
		w[i] = load_be32(p + 4 * i);
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR32(w[i - 15], 7) ^ ROR32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR32(w[i - 2], 17) ^ ROR32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	for (int i = 0; i < 64; i += 8) {
		ROUND(a, b, c, d, e, f, g, hh, i);
		ROUND(hh, a, b, c, d, e, f, g, i + 1);
		ROUND(g, hh, a, b, c, d, e, f, i + 2);
		ROUND(f, g, hh, a, b, c, d, e, i + 3);
		ROUND(e, f, g, hh, a, b, c, d, i + 4);
		ROUND(d, e, f, g, hh, a, b, c, i + 5);
		ROUND(c, d, e, f, g, hh, a, b, i + 6);
		ROUND(b, c, d, e, f, g, hh, a, i + 7);
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_NI 1

/* `blocks` 64-byte blocks mixed into h by the CPU's SHA extensions (Intel
 * since Goldmont and Ice Lake, AMD since Zen): 4 rounds an instruction
 * pair, the message schedule by sha256msg1/msg2. A rebuild of the index
 * digests each of its 100,000 lines (issue 19). */
__attribute__((target("sha,sse4.1,ssse3"))) static void sha256_blocks_ni(uint32_t h[8],
									 const unsigned char *p,
									 size_t blocks)
{
	const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i tmp = _mm_loadu_si128((const __m128i *)&h[0]);
	__m128i s1 = _mm_loadu_si128((const __m128i *)&h[4]), s0, abef, cdgh, msg, m[4];

	tmp = _mm_shuffle_epi32(tmp, 0xB1);	/* CDAB */
	s1 = _mm_shuffle_epi32(s1, 0x1B);	/* EFGH */
	s0 = _mm_alignr_epi8(tmp, s1, 8);	/* ABEF */
	s1 = _mm_blend_epi16(s1, tmp, 0xF0);	/* CDGH */
	for (; blocks--; p += 64) {
		abef = s0;
		cdgh = s1;
		for (int i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), mask);
		for (int i = 0; i < 16; i++) { /* rounds 4i to 4i+3 */
			msg = _mm_add_epi32(m[i & 3], _mm_loadu_si128((const __m128i *)&sha256_k[4 * i]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
			if (i >= 3 && i < 15) /* the words of rounds 4i+4 to 4i+7 */
				m[(i + 1) & 3] = _mm_sha256msg2_epu32(
					_mm_add_epi32(m[(i + 1) & 3],
						      _mm_alignr_epi8(m[i & 3], m[(i - 1) & 3], 4)),
					m[i & 3]);
			msg = _mm_shuffle_epi32(msg, 0x0E);
			s0 = _mm_sha256rnds2_epu32(s0, s1, msg);
			if (i >= 1 && i < 13)
				m[(i - 1) & 3] = _mm_sha256msg1_epu32(m[(i - 1) & 3], m[i & 3]);
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	tmp = _mm_shuffle_epi32(s0, 0x1B);	/* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xB1);	/* DCHG */
	s0 = _mm_blend_epi16(tmp, s1, 0xF0);	/* DCBA */
	s1 = _mm_alignr_epi8(s1, tmp, 8);	/* HGFE */
	_mm_storeu_si128((__m128i *)&h[0], s0);
	_mm_storeu_si128((__m128i *)&h[4], s1);
}

/* 1 when the CPU has the SHA extensions and the SSE they need. */
static int has_sha_ni(void)
{
	static int known = -1;
	unsigned a, b, c, d;

	if (known < 0) {
		known = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
			__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
	}
	return known;
}
#endif

static void sha256_blocks(uint32_t h[8], const unsigned char *p, size_t blocks, int portable)
{
#ifdef HAVE_SHA_NI
	if (!portable && has_sha_ni()) {
		sha256_blocks_ni(h, p, blocks);
		return;
	}
#endif
	(void)portable;
	for (size_t i = 0; i < blocks; i++)
		sha256_block(h, p + 64 * i);
}

static int sha256_hex(char out[65], const void *data, size_t len, int portable)
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	const unsigned char *p = data;
	unsigned char tail[128] = {0};
	size_t full = len - len % 64, rest = len % 64, tail_len = rest < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;

	if (!data && len)
		return mt_error_set(MT_EINVALID, "sha256: no data");
	sha256_blocks(h, p, full / 64, portable);
	if (rest)
		memcpy(tail, p + full, rest);
	tail[rest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[tail_len - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha256_blocks(h, tail, tail_len / 64, portable);
	for (int i = 0; i < 64; i++)
		out[i] = "0123456789abcdef"[(h[i / 8] >> (28 - 4 * (i % 8))) & 0xf];
	out[64] = '\0';
	return 0;
}

int mt_sha256_hex(char out[65], const void *data, size_t len)
{
	return sha256_hex(out, data, len, 0);
}

int mt_sha256_hex_portable(char out[65], const void *data, size_t len)
{
	return sha256_hex(out, data, len, 1);
}
