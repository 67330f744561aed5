package trial

import (
	"slices"
	"testing"

	"github.com/iolens/iolens/collector"
	"github.com/iolens/iolens/tune"
)

// Every HDF5 property a space can set is one the collector injects.
func TestHDF5KeysInjected(t *testing.T) {
	for _, k := range tune.HDF5Keys() {
		if !slices.Contains(collector.HDF5Properties, k) {
			t.Errorf("HDF5 key %s is not injected by the collector", k)
		}
	}
}
