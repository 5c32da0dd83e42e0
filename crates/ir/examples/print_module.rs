fn main() {
    let p = std::env::args().nth(1).unwrap();
    let m = converge_ir::parse(&p, std::fs::read_to_string(&p).unwrap()).unwrap();
    print!("{}", m.print_module());
}
