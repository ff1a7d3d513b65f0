package aac

import (
	"math"
	"testing"
)

type bitWriter struct {
	b []byte
	n int
}

func (w *bitWriter) put(v uint32, bits int) {
	for i := bits - 1; i >= 0; i-- {
		if w.n%8 == 0 {
			w.b = append(w.b, 0)
		}
		if v>>uint(i)&1 != 0 {
			w.b[len(w.b)-1] |= 0x80 >> uint(w.n%8)
		}
		w.n++
	}
}

// TestPulseData: ffmpeg's encoder writes no pulse data, so a frame is built
// bit by bit: one long-window SCE whose first band (codebook 7) holds 1, 0,
// 0, 0, with pulses of amplitude 2 on coefficient 0 (1 becomes 3) and 3 on
// coefficient 2 (a zero becomes −3).
func TestPulseData(t *testing.T) {
	c, err := ParseASC([]byte{0x12, 0x08}) // AAC-LC 44.1 kHz mono
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDecoder(c)
	if err != nil {
		t.Fatal(err)
	}
	var w bitWriter
	w.put(0, 3)                                       // SCE
	w.put(0, 4)                                       // element_instance_tag
	w.put(120, 8)                                     // global_gain
	w.put(0, 1)                                       // ics_reserved_bit
	w.put(0, 2)                                       // ONLY_LONG_SEQUENCE
	w.put(0, 1)                                       // sine window
	w.put(1, 6)                                       // max_sfb
	w.put(0, 1)                                       // predictor_data_present
	w.put(7, 4)                                       // sect_cb
	w.put(1, 5)                                       // sect_len
	w.put(scfCode[60], int(scfLen[60]))               // scalefactor = global_gain
	w.put(1, 1)                                       // pulse_data_present
	w.put(1, 2)                                       // number_pulse − 1
	w.put(0, 6)                                       // pulse_start_sfb
	w.put(0, 5)                                       // pulse_offset: coefficient 0
	w.put(2, 4)                                       // pulse_amp: 1 becomes 3
	w.put(2, 5)                                       // pulse_offset: coefficient 2
	w.put(3, 4)                                       // pulse_amp: 0 becomes −3
	w.put(0, 1)                                       // tns_data_present
	w.put(0, 1)                                       // gain_control_data_present
	w.put(specCode[7][1*8+0], int(specLen[7][1*8+0])) // (1, 0)
	w.put(0, 1)                                       // its sign: +
	w.put(specCode[7][0], int(specLen[7][0]))         // (0, 0)
	w.put(7, 3)                                       // END
	out := make([]float32, 1024)
	if err := d.Decode(w.b, out); err != nil {
		t.Fatal(err)
	}
	gain := math.Pow(2, 0.25*(120-100))
	want := []float64{math.Pow(3, 4.0/3) * gain, 0, -math.Pow(3, 4.0/3) * gain, 0}
	for k, v := range want {
		if got := float64(d.ics[0].spec[k]); math.Abs(got-v) > 1e-3*math.Abs(v)+1e-9 {
			t.Errorf("coefficient %d = %v, want %v", k, got, v)
		}
	}
	if d.stats.pulse != 1 {
		t.Errorf("%d pulse data, want 1", d.stats.pulse)
	}
}
