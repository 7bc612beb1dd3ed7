// The CRC-32 of ZIP entries (include/nax/io/zip.hpp): the carry-less-multiply version, chosen at
// run time where the processor has PCLMULQDQ, gives the table version's bits on random lengths
// (0 to 5000), alignments and starting values, on big inputs, and in pieces; known check values;
// and zip_writer's CRC computed while writing (the local header patched after) equals the one
// computed first, byte for byte; file_bytes (the mapping load_npy and load_tree read through).
#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "../support/reference.hpp"
#include "io_support.hpp"

namespace {

using nax::io::detail::crc32;
using nax::io::detail::crc32_table;

using namespace io_test;

std::string random_bytes(nax_test::random_source& rng, std::size_t n) {
  std::string s(n, '\0');
  for (auto& ch : s) ch = static_cast<char>(rng.integer(0, 255));
  return s;
}

// The crc32 that runs here and, where the processor has the multiply, the folding version
// itself, against the table.
void check_same(std::string_view bytes, std::uint32_t start) {
  const std::uint32_t want = crc32_table(bytes, start);
  CHECK(crc32(bytes, start) == want);
#ifdef NAX_IO_CRC32_CLMUL
  if (nax::io::detail::crc32_clmul_supported()) CHECK(nax::io::detail::crc32_clmul(bytes, start) == want);
#endif
}

// The header of one entry of the archive: its CRC-32 field (local header offset 14).
std::uint32_t local_crc(std::string_view archive) { return std::uint32_t(nax::io::detail::get_le(archive, 14, 4)); }

// A stream that cannot seek (tellp() is -1): zip_writer computes the CRC first there.
struct append_only : std::streambuf {
  std::string bytes;
  int overflow(int ch) override {
    if (ch != traits_type::eof()) bytes += static_cast<char>(ch);
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    bytes.append(s, static_cast<std::size_t>(n));
    return n;
  }
};

}  // namespace

TEST_CASE("crc32: the check values of ZIP's CRC-32, by the table and by the multiply") {
  for (auto [text, want] : {std::pair<std::string_view, std::uint32_t>{"", 0u},
                            {"a", 0xE8B7BE43u},
                            {"123456789", 0xCBF43926u},
                            {"The quick brown fox jumps over the lazy dog", 0x414FA339u}}) {
    CHECK(crc32_table(text) == want);
    CHECK(crc32(text) == want);
  }
  // 64 bytes and more go through the folding: 1 KiB of zeros and of 0xFF.
  CHECK(crc32(std::string(1024, '\0')) == 0xEFB5AF2Eu);
  CHECK(crc32_table(std::string(1024, '\0')) == 0xEFB5AF2Eu);
  check_same(std::string(1024, '\xFF'), 0);
  const std::string how = nax::io::detail::crc32_clmul_supported() ? "the carry-less multiply" : "the table";
  MESSAGE("crc32 on this processor: by " << how);
}

TEST_CASE("crc32: the multiply gives the table's bits on random lengths 0..5000, alignments and starting values") {
  nax_test::random_source rng(1832);
  const std::string pool = random_bytes(rng, 5000 + 64);
  for (int rep = 0; rep != 3000; ++rep) {
    const auto align = std::size_t(rng.integer(0, 63));
    // Lengths around the folding's edges (64 bytes, multiples of 16) come up often.
    const auto n = rep % 4 == 0 ? std::size_t(rng.integer(0, 130)) : std::size_t(rng.integer(0, 5000));
    const auto start = rep % 2 == 0 ? 0u : std::uint32_t(rng.integer(0, 0xFFFFFFFF));
    check_same(std::string_view(pool).substr(align, n), start);
  }
}

TEST_CASE("crc32: pieces chain (crc32(b, crc32(a)) is crc32(a + b)), and big inputs agree") {
  nax_test::random_source rng(77);
  const std::string big = random_bytes(rng, (std::size_t(16) << 20) + 13);  // 16 MiB and 13 bytes
  check_same(big, 0);
  check_same(std::string_view(big).substr(3), 0x12345678u);
  const std::uint32_t whole = crc32(big);
  for (int rep = 0; rep != 20; ++rep) {
    const auto cut = std::size_t(rng.integer(0, index_t(big.size())));
    const std::string_view v(big);
    CHECK(crc32(v.substr(cut), crc32(v.substr(0, cut))) == whole);
  }
}

TEST_CASE("zip_writer: the CRC-32 computed while writing big entries is the one computed first") {
  nax_test::random_source rng(4242);
  // Past fold_min (1 MiB), and not a whole number of pieces.
  const std::string head = "HEAD", body = random_bytes(rng, (std::size_t(3) << 20) + 5);
  std::ostringstream seekable;
  append_only plain;
  std::ostream unseekable(&plain);
  for (std::ostream* out : {static_cast<std::ostream*>(&seekable), &unseekable}) {
    nax::io::detail::zip_writer zip(*out, "t.npz");
    zip.add("big.npy", head, body);
    zip.add("small.txt", "small");
    zip.finish();
    REQUIRE(out->good());
  }
  const std::string folded = seekable.str();
  CHECK(folded == plain.bytes);  // (the CRC computed first there: the stream cannot seek)
  CHECK(local_crc(folded) == crc32_table(body, crc32_table(head)));
  const auto entries = nax::io::detail::zip_reader(folded, "t.npz").entries();  // checks every CRC-32
  REQUIRE(entries.size() == 2);
  CHECK(entries.at("big.npy") == head + body);
  CHECK(entries.at("small.txt") == "small");
}

TEST_CASE("file_bytes: a file's bytes mapped (or read where mapping does not apply); a missing file raises") {
  scratch dir("file_bytes");
  nax_test::random_source rng(9);
  const std::string bytes = random_bytes(rng, 100000);
  write_bytes(dir / "f.bin", bytes);
  const nax::io::detail::file_bytes f(dir / "f.bin");
  CHECK(f.view() == bytes);
#if NAX_IO_HAVE_MMAP
  CHECK(f.mapped());
#endif
  write_bytes(dir / "empty.bin", "");
  const nax::io::detail::file_bytes empty(dir / "empty.bin");  // (mmap refuses 0 bytes)
  CHECK(empty.view().empty());
  CHECK(!empty.mapped());
  const auto missing = error_of([&] { nax::io::detail::file_bytes none(dir / "none.bin"); });
  CHECK(missing.find("cannot open") != std::string::npos);
  CHECK(missing.find("none.bin") != std::string::npos);
}
