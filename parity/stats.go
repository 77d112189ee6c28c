package parity

import (
	"math"
	"sort"
)

// HistBins is the number of linear buckets of an error histogram, as in
// Polygraphy's comparison output.
const HistBins = 10

// Stats are absolute-error statistics of one output, Polygraphy-style.
type Stats struct {
	Max, Mean, Median, P99 float64
	Histogram              []Bin
}

// Bin is one histogram bucket: values in [Lo, Hi) (the last finite bucket
// includes Hi).
type Bin struct {
	Lo, Hi float64
	Count  int
}

// ErrorStats summarises absolute errors: max, mean, median and 99th
// percentile (numpy.percentile's linear interpolation) and a histogram of
// HistBins equal buckets over [0, max]. Infinite errors (ErrInf) make the
// mean ErrInf and get a bucket of their own, [largest finite, ErrInf].
func ErrorStats(errs []float64) Stats {
	if len(errs) == 0 {
		return Stats{Histogram: []Bin{}}
	}
	s := append([]float64(nil), errs...)
	sort.Float64s(s)
	st := Stats{Max: s[len(s)-1], Median: percentile(s, 0.5), P99: percentile(s, 0.99)}
	sum := 0.0
	finiteMax := 0.0
	inf := 0
	for _, e := range s {
		if e >= ErrInf {
			inf++
			continue
		}
		sum += e
		finiteMax = e
	}
	if inf > 0 {
		st.Mean = ErrInf
	} else {
		st.Mean = sum / float64(len(s))
	}
	finite := s[:len(s)-inf]
	if len(finite) > 0 {
		if finiteMax == 0 {
			st.Histogram = append(st.Histogram, Bin{Lo: 0, Hi: 0, Count: len(finite)})
		} else {
			w := finiteMax / HistBins
			bins := make([]Bin, HistBins)
			for i := range bins {
				bins[i] = Bin{Lo: float64(i) * w, Hi: float64(i+1) * w}
			}
			bins[HistBins-1].Hi = finiteMax
			for _, e := range finite {
				i := min(int(e/w), HistBins-1)
				bins[i].Count++
			}
			st.Histogram = bins
		}
	}
	if inf > 0 {
		st.Histogram = append(st.Histogram, Bin{Lo: finiteMax, Hi: ErrInf, Count: inf})
	}
	return st
}

// percentile interpolates linearly between the closest ranks of sorted s,
// numpy's default method.
func percentile(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	f := pos - float64(lo)
	if f == 0 || s[lo] == s[hi] {
		return s[lo]
	}
	if s[hi] >= ErrInf {
		return ErrInf
	}
	return s[lo] + f*(s[hi]-s[lo])
}
