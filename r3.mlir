func.func @f(%a: i32 {foo.a = 99999999999999999999999 : index}) {
  return
}
