// Package syncer folds device edits stamped with vector clocks into one
// converged document per entity, the same whatever order they arrive in.
package syncer

import "sort"

// Clock is a vector clock: device id → number of that device's events seen.
type Clock map[string]uint64

// Order is how two clocks compare under the causal partial order.
type Order int

const (
	Equal      Order = iota // same knowledge
	Before                  // the receiver happened before the argument
	After                   // the receiver happened after the argument
	Concurrent              // neither saw the other
)

func (o Order) String() string {
	return [...]string{"equal", "before", "after", "concurrent"}[o]
}

// Compare places c relative to o.
func (c Clock) Compare(o Clock) Order {
	less, more := false, false
	shared := 0
	for d, n := range c {
		m, ok := o[d]
		if ok {
			shared++
		}
		switch {
		case n < m:
			less = true
		case n > m:
			more = true
		}
	}
	if !less && shared < len(o) {
		for d, m := range o {
			if _, ok := c[d]; !ok && m > 0 {
				less = true
				break
			}
		}
	}
	switch {
	case less && more:
		return Concurrent
	case less:
		return Before
	case more:
		return After
	}
	return Equal
}

// LessEq reports whether c ≤ o (c is dominated by or equal to o).
func (c Clock) LessEq(o Clock) bool {
	for d, n := range c {
		if n > o[d] {
			return false
		}
	}
	return true
}

// Merge is the pointwise maximum of c and o, as a new clock.
func (c Clock) Merge(o Clock) Clock {
	out := make(Clock, len(c)+len(o))
	for d, n := range c {
		if n > 0 {
			out[d] = n
		}
	}
	for d, n := range o {
		if n > out[d] {
			out[d] = n
		}
	}
	return out
}

// mergeIn raises c to the pointwise maximum of c and o in place: folding a
// change into a state need not allocate a clock per change.
func (c *Clock) mergeIn(o Clock) {
	if *c == nil {
		*c = make(Clock, len(o))
	}
	for d, n := range o {
		if n > (*c)[d] {
			(*c)[d] = n
		}
	}
}

// Copy returns an independent clock.
func (c Clock) Copy() Clock { return Clock{}.Merge(c) }

// Devices lists the devices with a non-zero entry, sorted.
func (c Clock) Devices() []string {
	ds := make([]string, 0, len(c))
	for d, n := range c {
		if n > 0 {
			ds = append(ds, d)
		}
	}
	sort.Strings(ds)
	return ds
}
