package kernels

import (
	"encoding/binary"
	"math/bits"
)

// Fingerprint64 returns TensorFlow's 64-bit string fingerprint
// (tsl/platform/fingerprint.h Fingerprint64), which is FarmHash's
// Fingerprint64, i.e. farmhashna::Hash64 (google/farmhash src/farmhash.cc).
// StringToHashBucketFast buckets strings with it, so a port must reproduce
// it bit for bit: it is a direct transcription of farmhashna::Hash64 for a
// little-endian machine.
func Fingerprint64(s []byte) uint64 {
	n := len(s)
	if n <= 32 {
		if n <= 16 {
			return fhLen0to16(s)
		}
		return fhLen17to32(s)
	}
	if n <= 64 {
		return fhLen33to64(s)
	}
	const seed = 81
	x := uint64(seed)
	y := x*fhK1 + 113
	z := fhShiftMix(y*fhK2+113) * fhK2
	var v, w [2]uint64
	x = x*fhK2 + fh64(s, 0)

	// end leaves 1 to 64 bytes after the loop; last64 is the last 64 bytes.
	end := ((n - 1) / 64) * 64
	last64 := end + ((n - 1) & 63) - 63
	p := 0
	for {
		x = bits.RotateLeft64(x+y+v[0]+fh64(s, p+8), -37) * fhK1
		y = bits.RotateLeft64(y+v[1]+fh64(s, p+48), -42) * fhK1
		x ^= w[1]
		y += v[0] + fh64(s, p+40)
		z = bits.RotateLeft64(z+w[0], -33) * fhK1
		v = fhWeak32(s, p, v[1]*fhK1, x+w[0])
		w = fhWeak32(s, p+32, z+w[1], y+fh64(s, p+16))
		z, x = x, z
		p += 64
		if p == end {
			break
		}
	}
	mul := fhK1 + ((z & 0xff) << 1)
	p = last64
	w[0] += uint64((n - 1) & 63)
	v[0] += w[0]
	w[0] += v[0]
	x = bits.RotateLeft64(x+y+v[0]+fh64(s, p+8), -37) * mul
	y = bits.RotateLeft64(y+v[1]+fh64(s, p+48), -42) * mul
	x ^= w[1] * 9
	y += v[0]*9 + fh64(s, p+40)
	z = bits.RotateLeft64(z+w[0], -33) * mul
	v = fhWeak32(s, p, v[1]*mul, x+w[0])
	w = fhWeak32(s, p+32, z+w[1], y+fh64(s, p+16))
	z, x = x, z
	return fhLen16(fhLen16(v[0], w[0], mul)+fhShiftMix(y)*fhK0+z, fhLen16(v[1], w[1], mul)+x, mul)
}

const (
	fhK0 uint64 = 0xc3a5c85c97cb3127
	fhK1 uint64 = 0xb492b66fbe98f273
	fhK2 uint64 = 0x9ae16a3b2f90404f
)

func fh64(s []byte, i int) uint64 { return binary.LittleEndian.Uint64(s[i:]) }
func fh32(s []byte, i int) uint64 { return uint64(binary.LittleEndian.Uint32(s[i:])) }

func fhShiftMix(v uint64) uint64 { return v ^ (v >> 47) }

func fhLen16(u, v, mul uint64) uint64 {
	a := (u ^ v) * mul
	a ^= a >> 47
	b := (v ^ a) * mul
	b ^= b >> 47
	return b * mul
}

func fhLen0to16(s []byte) uint64 {
	n := uint64(len(s))
	if n >= 8 {
		mul := fhK2 + n*2
		a := fh64(s, 0) + fhK2
		b := fh64(s, len(s)-8)
		c := bits.RotateLeft64(b, -37)*mul + a
		d := (bits.RotateLeft64(a, -25) + b) * mul
		return fhLen16(c, d, mul)
	}
	if n >= 4 {
		mul := fhK2 + n*2
		a := fh32(s, 0)
		return fhLen16(n+(a<<3), fh32(s, len(s)-4), mul)
	}
	if n > 0 {
		a, b, c := uint32(s[0]), uint32(s[n>>1]), uint32(s[n-1])
		y := a + b<<8
		z := uint32(n) + c<<2
		return fhShiftMix(uint64(y)*fhK2^uint64(z)*fhK0) * fhK2
	}
	return fhK2
}

func fhLen17to32(s []byte) uint64 {
	n := len(s)
	mul := fhK2 + uint64(n)*2
	a := fh64(s, 0) * fhK1
	b := fh64(s, 8)
	c := fh64(s, n-8) * mul
	d := fh64(s, n-16) * fhK2
	return fhLen16(bits.RotateLeft64(a+b, -43)+bits.RotateLeft64(c, -30)+d,
		a+bits.RotateLeft64(b+fhK2, -18)+c, mul)
}

func fhLen33to64(s []byte) uint64 {
	n := len(s)
	mul := fhK2 + uint64(n)*2
	a := fh64(s, 0) * fhK2
	b := fh64(s, 8)
	c := fh64(s, n-8) * mul
	d := fh64(s, n-16) * fhK2
	y := bits.RotateLeft64(a+b, -43) + bits.RotateLeft64(c, -30) + d
	z := fhLen16(y, a+bits.RotateLeft64(b+fhK2, -18)+c, mul)
	e := fh64(s, 16) * mul
	f := fh64(s, 24)
	g := (y + fh64(s, n-32)) * mul
	h := (z + fh64(s, n-24)) * mul
	return fhLen16(bits.RotateLeft64(e+f, -43)+bits.RotateLeft64(g, -30)+h,
		e+bits.RotateLeft64(f+a, -18)+g, mul)
}

// fhWeak32 is WeakHashLen32WithSeeds over s[p:p+32].
func fhWeak32(s []byte, p int, a, b uint64) [2]uint64 {
	w, x, y, z := fh64(s, p), fh64(s, p+8), fh64(s, p+16), fh64(s, p+24)
	a += w
	b = bits.RotateLeft64(b+a+z, -21)
	c := a
	a += x
	a += y
	b += bits.RotateLeft64(a, -44)
	return [2]uint64{a + z, b + c}
}

// SipHash24 is SipHash-2-4 with the 128-bit key (k0, k1), the keyed hash
// StringToHashBucketStrong uses (core/kernels/string_to_hash_bucket_op.h
// StrongKeyedHash → highwayhash::SipHash, whose key is two uint64 words).
func SipHash24(k0, k1 uint64, m []byte) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13)
		v1 ^= v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16)
		v3 ^= v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21)
		v3 ^= v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17)
		v1 ^= v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	n := len(m)
	i := 0
	for ; i+8 <= n; i += 8 {
		mi := binary.LittleEndian.Uint64(m[i:])
		v3 ^= mi
		round()
		round()
		v0 ^= mi
	}
	last := uint64(n&0xff) << 56
	for j := 0; i+j < n; j++ {
		last |= uint64(m[i+j]) << (8 * j)
	}
	v3 ^= last
	round()
	round()
	v0 ^= last
	v2 ^= 0xff
	round()
	round()
	round()
	round()
	return v0 ^ v1 ^ v2 ^ v3
}

// Hash64 is TensorFlow's legacy string hash (tsl/platform/hash.cc
// Hash64(data, n, 0xDECAFCAFFE), a MurmurHash64A variant), used by the
// deprecated StringToHashBucket op.
func Hash64(s []byte) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	n := len(s)
	h := uint64(0xDECAFCAFFE) ^ (uint64(n) * m)
	for len(s) >= 8 {
		k := binary.LittleEndian.Uint64(s)
		s = s[8:]
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	if len(s) > 0 {
		for i := len(s) - 1; i >= 0; i-- {
			h ^= uint64(s[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}
