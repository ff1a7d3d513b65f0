package aac

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/helixhq/helix/internal/f32"
)

// ErrUnsupported marks a stream that is valid AAC but not AAC-LC mono or
// stereo (HE-AAC's SBR or PS, AAC Main, SSR, LTP, 960-sample frames, more
// than two channels): a caller may hand such a file to another decoder.
var ErrUnsupported = errors.New("unsupported AAC stream")

func unsupported(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, a...))
}

func corrupt(format string, a ...any) error {
	return fmt.Errorf("corrupt: %s", fmt.Sprintf(format, a...))
}

// Config is what the decoder needs from an AudioSpecificConfig or an ADTS header.
type Config struct {
	ObjectType int // 2 = AAC-LC
	RateIndex  int
	SampleRate int
	Channels   int
}

// ParseASC reads an MPEG-4 AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1).
func ParseASC(b []byte) (Config, error) {
	var r bitReader
	var buf []byte
	r.reset(b, &buf)
	var c Config
	c.ObjectType = int(r.read(5))
	if c.ObjectType == 31 {
		c.ObjectType = 32 + int(r.read(6))
	}
	c.RateIndex = int(r.read(4))
	if c.RateIndex == 15 {
		c.SampleRate = int(r.read(24))
	} else if c.RateIndex < len(sampleRates) {
		c.SampleRate = sampleRates[c.RateIndex]
	}
	c.Channels = int(r.read(4))
	if r.overrun() {
		return c, corrupt("AudioSpecificConfig is %d bytes", len(b))
	}
	switch c.ObjectType {
	case 2:
	case 5, 29:
		return c, unsupported("HE-AAC (SBR/PS)")
	default:
		return c, unsupported("audio object type %d (only AAC-LC, type 2, is decoded natively)", c.ObjectType)
	}
	if c.RateIndex >= len(sampleRates) {
		return c, unsupported("sampling frequency %d Hz outside the standard table", c.SampleRate)
	}
	if r.bit() {
		return c, unsupported("960-sample frames")
	}
	if r.bit() { // dependsOnCoreCoder
		return c, unsupported("core coder dependency")
	}
	if r.bit() { // extensionFlag
		return c, unsupported("extension flag")
	}
	// backward-compatible explicit SBR signalling after the GASpecificConfig
	if r.left() >= 16 && r.read(11) == 0x2B7 {
		if ext := r.read(5); ext == 5 && r.bit() {
			return c, unsupported("HE-AAC (SBR)")
		}
	}
	if c.Channels != 1 && c.Channels != 2 {
		return c, unsupported("channel configuration %d (mono and stereo are decoded natively)", c.Channels)
	}
	return c, nil
}

const (
	onlyLong = iota
	longStart
	eightShort
	longStop
)

const (
	zeroHCB       = 0
	escHCB        = 11
	noiseHCB      = 13
	intensityHCB2 = 14
	intensityHCB  = 15
)

type tnsFilter struct {
	length, order int
	down          bool
	lpc           [20]float64
}

type icsInfo struct {
	seq, shape, maxSfb int
	groups             int
	groupLen           [8]int
	swb                []uint16 // band offsets within a window
	numSwb             int
	windows            int
}

// ics is one channel's individual_channel_stream of the frame.
type ics struct {
	info       icsInfo
	globalGain int
	cb         [8][64]uint8
	sf         [8][64]int
	tnsN       [8]int
	tns        [8][4]tnsFilter
	spec       [1024]float32
}

type channel struct {
	overlap   [1024]float64
	prevShape int
}

// Decoder decodes raw AAC-LC frames (raw_data_block) of one stream.
type Decoder struct {
	cfg    Config
	tab    *tables
	ics    [2]ics
	ch     [2]channel
	msUsed [8][64]bool
	msMode int
	r      bitReader
	buf    []byte
	rnd    uint32
	long   *imdct
	short  *imdct
	win    *windows
	y      [2048]float64
	pcm    [2][1024]float32 // a stereo only-long block per channel, before interleaving
	tmp    [2048]float64
	gain   *[512]float32 // 2^(0.25·(i−200)), i = sf + 100
	pow43  []float32
	// SBR is set once a frame carried SBR extension data (implicit HE-AAC)
	SBR   bool
	stats toolStats
}

// toolStats counts the coding tools the decoded frames used (tests check
// that the fixtures exercise each one).
type toolStats struct {
	short, tns, pns, intensity, ms, pulse int
}

// NewDecoder returns a decoder of AAC-LC frames with configuration c.
func NewDecoder(c Config) (*Decoder, error) {
	if c.ObjectType != 2 {
		return nil, unsupported("audio object type %d", c.ObjectType)
	}
	if c.Channels != 1 && c.Channels != 2 {
		return nil, unsupported("channel configuration %d", c.Channels)
	}
	if c.RateIndex < 0 || c.RateIndex >= len(sampleRates) {
		return nil, unsupported("sampling frequency index %d", c.RateIndex)
	}
	t := getTables()
	d := &Decoder{cfg: c, tab: t, rnd: 0x1f2e3d4c, win: t.win, gain: &t.gain, pow43: t.pow43}
	// spec: x = 2/N Σ …; output full scale is 32768
	d.long = newIMDCT(1024, 2.0/2048/32768)
	d.short = newIMDCT(128, 2.0/256/32768)
	return d, nil
}

// Config returns the stream's configuration.
func (d *Decoder) Config() Config { return d.cfg }

// Decode decodes one raw_data_block into out, 1024 interleaved samples per
// channel (full scale ±1); out must hold 1024·Channels values.
func (d *Decoder) Decode(frame []byte, out []float32) error {
	d.r.reset(frame, &d.buf)
	return d.decodeBlock(out)
}

func (d *Decoder) decodeBlock(out []float32) error {
	r := &d.r
	if len(out) < 1024*d.cfg.Channels {
		return errors.New("output buffer too small")
	}
	got := false
	for {
		if r.overrun() {
			return errOverrun
		}
		id := r.read(3)
		switch id {
		case 0: // SCE
			if d.cfg.Channels != 1 || got {
				return corrupt("single channel element in a %d-channel stream", d.cfg.Channels)
			}
			r.skip(4)
			if err := d.readICS(&d.ics[0], false); err != nil {
				return err
			}
			d.dequant(&d.ics[0])
			got = true
		case 1: // CPE
			if d.cfg.Channels != 2 || got {
				return corrupt("channel pair element in a %d-channel stream", d.cfg.Channels)
			}
			r.skip(4)
			if err := d.readCPE(); err != nil {
				return err
			}
			got = true
		case 2:
			return unsupported("coupling channel element")
		case 3:
			return unsupported("LFE channel element")
		case 4: // DSE
			r.skip(4)
			align := r.bit()
			n := int(r.read(8))
			if n == 255 {
				n += int(r.read(8))
			}
			if align {
				r.align()
			}
			r.skip(8 * n)
		case 5:
			return unsupported("program config element inside a frame")
		case 6: // FIL
			n := int(r.read(4))
			if n == 15 {
				n += int(r.read(8)) - 1
			}
			if n > 0 {
				if t := r.peek(4); t == 0xD || t == 0xE {
					d.SBR = true
				}
			}
			r.skip(8 * n)
		case 7: // END
			if r.overrun() {
				return errOverrun
			}
			if !got {
				return corrupt("frame without an audio element")
			}
			d.synthesize(out)
			return nil
		}
	}
}

func (d *Decoder) readCPE() error {
	r := &d.r
	common := r.bit()
	a, b := &d.ics[0], &d.ics[1]
	d.msMode = 0
	if common {
		if err := d.readICSInfo(&a.info); err != nil {
			return err
		}
		b.info = a.info
		d.msMode = int(r.read(2))
		switch d.msMode {
		case 1:
			for g := 0; g < a.info.groups; g++ {
				for s := 0; s < a.info.maxSfb; s++ {
					d.msUsed[g][s] = r.bit()
				}
			}
		case 2:
			for g := 0; g < a.info.groups; g++ {
				for s := 0; s < a.info.maxSfb; s++ {
					d.msUsed[g][s] = true
				}
			}
		case 3:
			return corrupt("reserved ms_mask_present")
		}
	}
	if err := d.readICS(a, common); err != nil {
		return err
	}
	if err := d.readICS(b, common); err != nil {
		return err
	}
	d.dequant(a)
	d.dequant(b)
	if common {
		d.stereo(a, b)
	}
	return nil
}

func (d *Decoder) readICSInfo(in *icsInfo) error {
	r := &d.r
	r.skip(1) // reserved
	in.seq = int(r.read(2))
	in.shape = int(r.read(1))
	ri := d.cfg.RateIndex
	if in.seq == eightShort {
		d.stats.short++
		in.maxSfb = int(r.read(4))
		grouping := r.read(7)
		in.groups = 1
		in.groupLen = [8]int{1}
		for i := 6; i >= 0; i-- {
			if grouping>>uint(i)&1 != 0 {
				in.groupLen[in.groups-1]++
			} else {
				in.groups++
				in.groupLen[in.groups-1] = 1
			}
		}
		in.swb = swbOffsetShort[ri]
		in.windows = 8
	} else {
		in.maxSfb = int(r.read(6))
		if r.bit() {
			return unsupported("prediction (AAC Main or LTP)")
		}
		in.groups = 1
		in.groupLen = [8]int{1}
		in.swb = swbOffsetLong[ri]
		in.windows = 1
	}
	in.numSwb = len(in.swb) - 1
	if in.maxSfb > in.numSwb {
		return corrupt("max_sfb %d with %d scalefactor bands", in.maxSfb, in.numSwb)
	}
	return nil
}

func (d *Decoder) readICS(c *ics, common bool) error {
	r := &d.r
	c.globalGain = int(r.read(8))
	if !common {
		if err := d.readICSInfo(&c.info); err != nil {
			return err
		}
	}
	in := &c.info
	// section_data
	bitsLen, esc := uint(5), uint32(31)
	if in.seq == eightShort {
		bitsLen, esc = 3, 7
	}
	for g := 0; g < in.groups; g++ {
		k := 0
		for k < in.maxSfb {
			cb := uint8(r.read(4))
			if cb == 12 {
				return corrupt("reserved codebook 12")
			}
			n := 0
			for {
				inc := r.read(bitsLen)
				n += int(inc)
				if inc != esc {
					break
				}
				if r.overrun() {
					return errOverrun
				}
			}
			if n == 0 || k+n > in.maxSfb {
				return corrupt("section of %d bands at band %d of %d", n, k, in.maxSfb)
			}
			for ; n > 0; n-- {
				c.cb[g][k] = cb
				k++
			}
		}
	}
	// scale_factor_data
	sf, isPos, noise := c.globalGain, 0, c.globalGain-90
	noiseFirst := true
	for g := 0; g < in.groups; g++ {
		for s := 0; s < in.maxSfb; s++ {
			switch c.cb[g][s] {
			case zeroHCB:
				c.sf[g][s] = 0
			case intensityHCB, intensityHCB2:
				v, ok := d.tab.scf.decode(r)
				if !ok {
					return errBadCode
				}
				isPos += v - 60
				c.sf[g][s] = isPos
			case noiseHCB:
				if noiseFirst {
					noiseFirst = false
					noise += int(r.read(9)) - 256
				} else {
					v, ok := d.tab.scf.decode(r)
					if !ok {
						return errBadCode
					}
					noise += v - 60
				}
				c.sf[g][s] = noise
			default:
				v, ok := d.tab.scf.decode(r)
				if !ok {
					return errBadCode
				}
				sf += v - 60
				if sf < 0 || sf > 255 {
					return corrupt("scalefactor %d out of range", sf)
				}
				c.sf[g][s] = sf
			}
		}
	}
	// pulse_data
	var pulses [4][2]int
	npulse, pulseStart := 0, 0
	if r.bit() {
		if in.seq == eightShort {
			return corrupt("pulse data in a short window")
		}
		d.stats.pulse++
		npulse = int(r.read(2)) + 1
		pulseStart = int(r.read(6))
		for i := 0; i < npulse; i++ {
			pulses[i] = [2]int{int(r.read(5)), int(r.read(4))}
		}
	}
	// tns_data
	c.tnsN = [8]int{}
	if r.bit() {
		d.stats.tns++
		if err := d.readTNS(c); err != nil {
			return err
		}
	}
	if r.bit() {
		return unsupported("gain control (AAC SSR)")
	}
	if r.overrun() {
		return errOverrun
	}
	if err := d.readSpectrum(c); err != nil {
		return err
	}
	if npulse > 0 {
		if pulseStart >= in.numSwb {
			return corrupt("pulse_start_sfb %d", pulseStart)
		}
		k := int(in.swb[pulseStart])
		for i := 0; i < npulse; i++ {
			k += pulses[i][0]
			if k >= 1024 {
				return corrupt("pulse past the spectrum")
			}
			d.pulse(c, k, pulses[i][1])
		}
	}
	if r.overrun() {
		return errOverrun
	}
	return nil
}

// pulse adds amp to the magnitude of quantised value k (long windows only),
// recovering the value from its dequantised form.
func (d *Decoder) pulse(c *ics, k, amp int) {
	in := &c.info
	s := 0
	for s+1 < len(in.swb) && int(in.swb[s+1]) <= k {
		s++
	}
	if s >= in.maxSfb {
		return // outside the coded bands: the value is zero and no band gain applies
	}
	cb := c.cb[0][s]
	if cb == zeroHCB || cb >= noiseHCB {
		return
	}
	gain := d.gain[c.sf[0][s]+100]
	x := c.spec[k]
	q := int(math.Round(math.Pow(math.Abs(float64(x/gain)), 0.75)))
	if x > 0 {
		q += amp
		c.spec[k] = d.pow43[min(q, len(d.pow43)-1)] * gain
	} else {
		q += amp
		c.spec[k] = -d.pow43[min(q, len(d.pow43)-1)] * gain
	}
}

func (d *Decoder) readTNS(c *ics) error {
	r := &d.r
	in := &c.info
	short := in.seq == eightShort
	nBits, lenBits, ordBits, maxOrder := uint(2), uint(6), uint(5), 12
	if short {
		nBits, lenBits, ordBits, maxOrder = 1, 4, 3, 7
	}
	for w := 0; w < in.windows; w++ {
		n := int(r.read(nBits))
		c.tnsN[w] = n
		if n == 0 {
			continue
		}
		res := 3 + int(r.read(1))
		for f := 0; f < n; f++ {
			t := &c.tns[w][f]
			t.length = int(r.read(lenBits))
			t.order = int(r.read(ordBits))
			if t.order > maxOrder {
				return corrupt("TNS order %d", t.order)
			}
			if t.order == 0 {
				continue
			}
			t.down = r.bit()
			bits := res - int(r.read(1))
			iq := (float64(int(1)<<(res-1)) - 0.5) / (math.Pi / 2)
			iqm := (float64(int(1)<<(res-1)) + 0.5) / (math.Pi / 2)
			var k [20]float64
			for i := 0; i < t.order; i++ {
				v := int(r.read(uint(bits)))
				if v >= 1<<(bits-1) {
					v -= 1 << bits
				}
				if v >= 0 {
					k[i] = math.Sin(float64(v) / iq)
				} else {
					k[i] = math.Sin(float64(v) / iqm)
				}
			}
			// parcor to LPC (step-up)
			var a, b [21]float64
			for m := 1; m <= t.order; m++ {
				for i := 1; i < m; i++ {
					b[i] = a[i] + k[m-1]*a[m-i]
				}
				for i := 1; i < m; i++ {
					a[i] = b[i]
				}
				a[m] = k[m-1]
			}
			for i := 0; i < t.order; i++ {
				t.lpc[i] = a[i+1]
			}
		}
	}
	return nil
}

// readSpectrum decodes the spectral data and dequantises it on the way,
// x = sign·|q|^(4/3)·2^((sf−100)/4); noise bands are left to dequant.
func (d *Decoder) readSpectrum(c *ics) error {
	r := &d.r
	in := &c.info
	clear(c.spec[:])
	pow43 := d.pow43
	win := 0
	for g := 0; g < in.groups; g++ {
		for s := 0; s < in.maxSfb; s++ {
			cbi := c.cb[g][s]
			if cbi == zeroHCB || cbi >= noiseHCB {
				continue
			}
			cb := &d.tab.spec[cbi]
			gain := d.gain[c.sf[g][s]+100]
			lo, hi := int(in.swb[s]), int(in.swb[s+1])
			for w := 0; w < in.groupLen[g]; w++ {
				x := c.spec[(win+w)*128:]
				if in.windows == 1 {
					x = c.spec[:]
				}
				if err := readBand(r, cb, x[:hi], lo, gain, pow43, cbi == escHCB); err != nil {
					return err
				}
				if r.overrun() {
					return errOverrun
				}
			}
		}
		win += in.groupLen[g]
	}
	return nil
}

// readBand decodes the spectral values of lines lo..len(x) of one window
// with codebook cb, scaled by gain (esc: cb is the escape codebook). It is
// the bitReader's peek, read and huffTable.decode inlined, with the bit
// position in a local (helix, issue 50: a quarter of an AAC decode is here):
// one 64-bit load per codeword yields the codeword and its sign bits; the
// rare escapes go through r.
func readBand(r *bitReader, cb *codebook, x []float32, lo int, gain float32, pow43 []float32, esc bool) error {
	b, pos := r.b, r.pos
	t := cb.t
	for k := lo; k < len(x); k += cb.dim {
		var v uint64 // the next bits, at least 57 of them; zeros past the frame, as peek gives
		if i := pos >> 3; i+8 <= len(b) {
			v = binary.BigEndian.Uint64(b[i:]) << uint(pos&7)
		}
		e := t[v>>(64-rootBits)]
		if e>>31 != 0 {
			w := uint(e & 0xFF)
			e = t[int(e>>8&0x7FFFFF)+int(v<<rootBits>>(64-w))]
		}
		l := uint(e & 0xFF)
		if l == 0 {
			r.pos = pos
			return errBadCode
		}
		pos += int(l)
		sym := int(e >> 8 & 0xFFFF)
		f := &cb.fvals[sym]
		if !cb.unsigned {
			if cb.dim == 4 {
				y := x[k : k+4 : k+4]
				y[0], y[1], y[2], y[3] = f[0]*gain, f[1]*gain, f[2]*gain, f[3]*gain
			} else {
				y := x[k : k+2 : k+2]
				y[0], y[1] = f[0]*gain, f[1]*gain
			}
			continue
		}
		// sign bits of the non-zero values (after the codeword, first sign
		// in the top bit; the bits below them are never used), then the
		// escapes; the signs are applied without branches (they are random
		// bits: a branch on each is mispredicted half the time)
		signs := uint32(v << l >> 32)
		pos += int(cb.nz[sym])
		vals := &cb.vals[sym]
		for i := 0; i < cb.dim; i++ {
			q := int(vals[i])
			one := uint32(min(q, 1)) // 1 unless q is 0
			neg := signs >> 31 & one
			signs <<= one
			y := f[i] * gain
			if q == 16 && esc {
				r.pos = pos
				n := 0
				for r.bit() {
					n++
					if n > 8 {
						return corrupt("escape sequence too long")
					}
				}
				q = 1<<(n+4) + int(r.read(uint(n+4)))
				y = pow43[q] * gain
				pos = r.pos
			}
			x[k+i] = math.Float32frombits(math.Float32bits(y) ^ neg<<31)
		}
	}
	r.pos = pos
	return nil
}

// dequant fills the noise bands (PNS) with scaled pseudo-random values, in
// band order, drawing from the generator as ffmpeg does.
func (d *Decoder) dequant(c *ics) {
	in := &c.info
	win := 0
	for g := 0; g < in.groups; g++ {
		for s := 0; s < in.maxSfb; s++ {
			if c.cb[g][s] != noiseHCB {
				continue
			}
			lo, hi := int(in.swb[s]), int(in.swb[s+1])
			for w := 0; w < in.groupLen[g]; w++ {
				base := (win + w) * 128
				if in.windows == 1 {
					base = 0
				}
				x := c.spec[base+lo : base+hi]
				d.stats.pns++
				var e float64
				for i := range x {
					d.rnd = d.rnd*1664525 + 1013904223
					v := float32(int32(d.rnd))
					x[i] = v
					e += float64(v) * float64(v)
				}
				scale := float32(math.Pow(2, 0.25*float64(c.sf[g][s])) / math.Sqrt(e))
				for i := range x {
					x[i] *= scale
				}
			}
		}
		win += in.groupLen[g]
	}
}

// stereo applies M/S and intensity stereo to a common-window channel pair.
func (d *Decoder) stereo(a, b *ics) {
	in := &a.info
	win := 0
	for g := 0; g < in.groups; g++ {
		for s := 0; s < in.maxSfb; s++ {
			lo, hi := int(in.swb[s]), int(in.swb[s+1])
			cbr := b.cb[g][s]
			for w := 0; w < in.groupLen[g]; w++ {
				base := (win + w) * 128
				if in.windows == 1 {
					base = 0
				}
				l, rr := a.spec[base+lo:base+hi], b.spec[base+lo:base+hi]
				switch {
				case cbr == intensityHCB || cbr == intensityHCB2:
					d.stats.intensity++
					sc := math.Pow(0.5, 0.25*float64(b.sf[g][s]))
					if cbr == intensityHCB2 {
						sc = -sc
					}
					if d.msMode == 1 && d.msUsed[g][s] {
						sc = -sc
					}
					f := float32(sc)
					for i := range rr {
						rr[i] = l[i] * f
					}
				case d.msMode != 0 && d.msUsed[g][s] && a.cb[g][s] != noiseHCB && cbr != noiseHCB:
					d.stats.ms++
					for i := range l {
						m, s := l[i], rr[i]
						l[i], rr[i] = m+s, m-s
					}
				}
			}
		}
		win += in.groupLen[g]
	}
}

var tnsMaxBandsLong = [12]int{31, 31, 34, 40, 42, 51, 46, 46, 42, 42, 42, 39}
var tnsMaxBandsShort = [12]int{9, 9, 10, 14, 14, 14, 14, 14, 14, 14, 14, 14}

func (d *Decoder) applyTNS(c *ics) {
	in := &c.info
	maxBands := tnsMaxBandsLong[d.cfg.RateIndex]
	if in.windows == 8 {
		maxBands = tnsMaxBandsShort[d.cfg.RateIndex]
	}
	mmm := min(maxBands, in.maxSfb)
	for w := 0; w < in.windows; w++ {
		bottom := in.numSwb
		for f := 0; f < c.tnsN[w]; f++ {
			t := &c.tns[w][f]
			top := bottom
			bottom = max(0, top-t.length)
			if t.order == 0 {
				continue
			}
			start, end := int(in.swb[min(bottom, mmm)]), int(in.swb[min(top, mmm)])
			size := end - start
			if size <= 0 {
				continue
			}
			x := c.spec[w*128:]
			if in.windows == 1 {
				x = c.spec[:]
			}
			inc := 1
			if t.down {
				inc = -1
				start = end - 1
			}
			for m, p := 0, start; m < size; m, p = m+1, p+inc {
				v := float64(x[p])
				for i := 1; i <= min(m, t.order); i++ {
					v -= float64(x[p-i*inc]) * t.lpc[i-1]
				}
				x[p] = float32(v)
			}
		}
	}
}

// longWindowGo unfolds an only-long block's IMDCT output from the DCT-IV's u
// and windows it in one pass, y[n] = u[512+n] = −y[1023−n], y[1024+n] =
// −u[511−n] = y[2047−n]: o is the overlap-add with ov, and ov becomes the
// block's second half windowed by right. It is the reference for
// longWindowAVX2.
func longWindowGo(u, left, right, ov *[1024]float64, o *[1024]float32) {
	for n := 0; n < 512; n++ {
		a := u[512+n]
		o[n] = float32(ov[n] + a*left[n])
		o[1023-n] = float32(ov[1023-n] - a*left[1023-n])
		b := -u[511-n]
		ov[n] = b * right[1023-n]
		ov[1023-n] = b * right[n]
	}
}

// interleave writes l and r to out as interleaved stereo.
func interleave(l, r *[1024]float32, out []float32) {
	f32.Interleave2(l[:], r[:], out)
}

// synthesize runs TNS and the filterbank of every channel and interleaves the output.
func (d *Decoder) synthesize(out []float32) {
	nch := d.cfg.Channels
	// a stereo only-long channel is written to d.pcm, then interleaved
	var pending [2]bool
	for chn := 0; chn < nch; chn++ {
		c := &d.ics[chn]
		d.applyTNS(c)
		st := &d.ch[chn]
		in := &c.info
		wl := d.win.long
		ws := d.win.short
		y := d.y[:]
		ov := &st.overlap
		switch in.seq {
		case eightShort:
			buf := d.tmp[:]
			clear(buf)
			for w := 0; w < 8; w++ {
				d.short.run(c.spec[w*128:w*128+128], y[:256])
				left := ws[in.shape]
				if w == 0 {
					left = ws[st.prevShape]
				}
				right := ws[in.shape]
				o := buf[448+128*w:]
				for n := 0; n < 128; n++ {
					o[n] += y[n] * left[n]
					o[128+n] += y[128+n] * right[127-n]
				}
			}
			for n := 0; n < 1024; n++ {
				out[n*nch+chn] = float32(ov[n] + buf[n])
			}
			copy(ov[:], buf[1024:2048])
		case onlyLong:
			// the IMDCT's output unfolded from the DCT-IV's u and windowed in
			// one pass: y[n] = u[512+n] = −y[1023−n], y[1024+n] = −u[511−n] = y[2047−n]
			u := (*[1024]float64)(d.long.dct4(c.spec[:1024]))
			left, right := (*[1024]float64)(wl[st.prevShape]), (*[1024]float64)(wl[in.shape])
			o := (*[1024]float32)(out)
			if nch == 2 {
				o = &d.pcm[chn]
			}
			if hasFFTKernel {
				longWindowAVX2(u, left, right, ov, o)
			} else {
				longWindowGo(u, left, right, ov, o)
			}
			pending[chn] = nch == 2
		default:
			d.long.run(c.spec[:1024], y)
			if in.seq == longStop {
				left := ws[st.prevShape]
				for n := 0; n < 448; n++ {
					y[n] = 0
				}
				for n := 0; n < 128; n++ {
					y[448+n] *= left[n]
				}
			} else {
				left := wl[st.prevShape]
				for n := 0; n < 1024; n++ {
					y[n] *= left[n]
				}
			}
			for n := 0; n < 1024; n++ {
				out[n*nch+chn] = float32(ov[n] + y[n])
			}
			if in.seq == longStart {
				right := ws[in.shape]
				copy(ov[:448], y[1024:1472])
				for n := 0; n < 128; n++ {
					ov[448+n] = y[1472+n] * right[127-n]
				}
				clear(ov[576:])
			} else {
				right := wl[in.shape]
				for n := 0; n < 1024; n++ {
					ov[n] = y[1024+n] * right[1023-n]
				}
			}
		}
		st.prevShape = in.shape
	}
	switch {
	case pending[0] && pending[1]:
		interleave(&d.pcm[0], &d.pcm[1], out)
	case pending[0] || pending[1]:
		for chn := range pending {
			if pending[chn] {
				for n, v := range d.pcm[chn] {
					out[2*n+chn] = v
				}
			}
		}
	}
}
