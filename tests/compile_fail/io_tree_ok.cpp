// expect-compile
// The control of io_load_tree_leaf and device_put_like_element: save_tree of any pytree leaves
// and of GlobalArrays, load_tree into Arrays, numbers and GlobalArrays, device_put_like of an
// array with the same element type.
#include <nax/nax.hpp>
#include <nax/io.hpp>

NAX_AXIS(in);
NAX_AXIS(data);

int main() {
  nax::Array<float, in> x({4});
  nax::io::save_tree("t.npz", std::make_tuple(x, x.view(), x * 2.f, 1.5));
  auto tree = nax::io::load_tree("t.npz", std::make_tuple(x, x, x, 0.0));
  nax::Mesh<data> mesh(nax::host::devices(2), {2});
  auto g = nax::device_put<nax::shard<in, data>>(mesh, x);
  nax::io::save_tree("g.npz", std::make_tuple(g));
  auto sharded = nax::io::load_tree("g.npz", std::make_tuple(g));
  auto h = nax::device_put_like(g, x * 2.f);
  (void)tree;
  (void)sharded;
  (void)h;
}
