package manifest

import (
	"context"
	"runtime"
	"sync"
)

// InParallel calls f(0) … f(n-1) on GOMAXPROCS goroutines and waits for
// them. Once ctx ends it starts no more calls and returns ctx's error at
// once, leaving the calls under way to finish unobserved (one schema's
// compile can take seconds: quicksight's): the caller must then not read
// what they write.
func InParallel(ctx context.Context, n int, f func(i int)) error {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			close(next)
			return ctx.Err()
		}
	}
	close(next)
	wg.Wait()
	return ctx.Err()
}
